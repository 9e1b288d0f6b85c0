import Testing

@testable import PinpadCore

/// When the lockout file is written (`LockoutSaving`), as a value: what is saved, what
/// the file holds, a failed write's retry.
@Suite struct LockoutSavingTests {
  static let t0 = Instant(nanoseconds: 1_000_000_000_000)
  static let one = LockoutState(failures: 1)

  @Test("a changed state is written once; the same state again is not")
  func writtenOnChange() {
    var saving = LockoutSaving(SavedLockouts(), persistent: true)
    #expect(saving.save(at: Self.t0) == nil, "nothing to keep, nothing to write")
    saving.record(Self.one, for: "door")
    #expect(saving.save(at: Self.t0) == ["door": Self.one])
    #expect(saving.written == ["door": Self.one])
    saving.record(Self.one, for: "door")
    #expect(saving.save(at: Self.t0 + .seconds(1)) == nil)
  }

  @Test("a lock that has ended is written once as ended, then no more")
  func endedLockWrittenOnce() {
    var saving = LockoutSaving(SavedLockouts(), persistent: true)
    let until = Self.t0 + .seconds(30)
    saving.record(LockoutState(level: 1, lockedUntil: until), for: "door")
    #expect(saving.save(at: Self.t0) != nil)
    #expect(saving.save(at: Self.t0 + .seconds(10)) == nil, "the same lock")
    #expect(saving.save(at: until) != nil, "the file's line loses its time")
    #expect(saving.written == ["door": LockoutState(level: 1)])
    #expect(saving.save(at: until + .seconds(10)) == nil)
  }

  @Test("a failed write: an error, a retry 5 s later, the file unknown; once it works, neither")
  func failedWriteRetried() {
    var saving = LockoutSaving(SavedLockouts(), persistent: true)
    saving.record(Self.one, for: "door")
    #expect(saving.save(at: Self.t0) != nil)
    #expect(
      saving.saved(failure: "disk full", now: Self.t0) == .failed(reason: "disk full", first: true))
    #expect(saving.error == "disk full")
    #expect(saving.written == nil)
    #expect(saving.retry == Self.t0 + LockoutSaving.retryInterval)
    #expect(!saving.retryDue(now: Self.t0 + .milliseconds(4999)))
    #expect(saving.retryDue(now: Self.t0 + .seconds(5)))
    // Written again although nothing changed: the last write failed.
    #expect(saving.save(at: Self.t0 + .seconds(5)) == ["door": Self.one])
    #expect(saving.retry == nil, "a write under way is no retry")
    #expect(
      saving.saved(failure: "disk full", now: Self.t0 + .seconds(5))
        == .failed(reason: "disk full", first: false))
    #expect(saving.save(at: Self.t0 + .seconds(10)) != nil)
    #expect(saving.saved(failure: nil, now: Self.t0 + .seconds(10)) == .savedAgain)
    #expect(saving.error == nil && saving.retry == nil)
    #expect(saving.saved(failure: nil, now: Self.t0 + .seconds(11)) == .saved)
  }

  @Test("--state-dir none: states are kept, never written")
  func notPersistent() {
    var saving = LockoutSaving(SavedLockouts(), persistent: false)
    saving.record(Self.one, for: "door")
    #expect(saving.save(at: Self.t0) == nil)
    #expect(saving.saved.states["door"] == Self.one)
  }

  @Test("a file with lines that did not parse is written at the first save")
  func differingFileRewritten() {
    var saving = LockoutSaving(SavedLockouts(fileDiffers: true), persistent: true)
    #expect(saving.written == nil)
    #expect(saving.save(at: Self.t0) == [:])
    #expect(saving.save(at: Self.t0) == nil)
  }

  @Test("a guessed lock is kept while it lasts and forgotten once it ends, unless recorded")
  func guessesForgotten() {
    let until = Self.t0 + .seconds(30)
    let saved = SavedLockouts(
      states: [
        "garbled": LockoutState(level: 1, lockedUntil: until),
        "*": LockoutState(level: 1, lockedUntil: until),
        "door": LockoutState(level: 1, lockedUntil: until),
      ], guessed: ["garbled", "door"], fileDiffers: true)
    var saving = LockoutSaving(saved, persistent: true)
    #expect(saving.state(for: "lobby") == saved.states["*"], "\"*\" stands for every keypad")
    #expect(saving.save(at: Self.t0)?.keys.sorted() == ["*", "door", "garbled"])
    saving.record(LockoutState(level: 1, lockedUntil: until), for: "door")
    #expect(saving.saved.guessed == ["garbled"], "a keypad's own state is no guess")
    saving.record(LockoutState(), for: "door")
    #expect(saving.save(at: until)?.keys.sorted() == ["door"])
    #expect(saving.saved.guessed.isEmpty)
    #expect(saving.state(for: "lobby") == LockoutState())
  }
}
