import PinpadCore
import Testing

/// The clocks before a restart: monotonic 1000 s, wall 2023-11-14T22:13:20Z.
private let monoBefore = Instant.seconds(1000)
private let wallBefore: Int64 = 1_700_000_000_000
/// After the restart the monotonic clock started again; the wall clock went on.
private let monoAfter = Instant.seconds(7)
private let conservative: Duration = .seconds(30)

private func render(_ states: [String: LockoutState]) -> String {
  LockoutStore.render(states, nowMono: monoBefore, nowWallMs: wallBefore)
}

private func parse(_ text: String, wallMs: Int64 = wallBefore) -> (
  states: [String: LockoutState], problems: [String]
) {
  let parsed = LockoutStore.parse(
    text, nowMono: monoAfter, nowWallMs: wallMs, conservative: conservative)
  return (parsed.states, parsed.problems)
}

@Suite("Lockout store")
struct LockoutStoreTests {
  @Test("the file lives in the state directory")
  func path() {
    #expect(LockoutStore(directory: "/var/lib/pinpadd").path == "/var/lib/pinpadd/lockout")
  }

  // MARK: - Rendering

  @Test("a lock is written as the wall-clock millisecond it ends")
  func renderLock() {
    let text = render([
      "front": LockoutState(failures: 2, level: 1, lockedUntil: monoBefore + .seconds(30))
    ])
    #expect(text == "front 2 1 1700000030000\n")
  }

  @Test("a keypad with failures but no lock is written with 0 for the end")
  func renderUnlocked() {
    #expect(render(["front": LockoutState(failures: 3, level: 0)]) == "front 3 0 0\n")
  }

  @Test("a lock that has already ended is written as 0")
  func renderEndedLock() {
    let state = LockoutState(failures: 0, level: 2, lockedUntil: monoBefore - .seconds(1))
    #expect(render(["front": state]) == "front 0 2 0\n")
    let endingNow = LockoutState(failures: 0, level: 2, lockedUntil: monoBefore)
    #expect(render(["front": endingNow]) == "front 0 2 0\n")
  }

  @Test("keypads with nothing to remember are left out")
  func zeroStatesOmitted() {
    let text = render([
      "idle": LockoutState(),
      "ended": LockoutState(failures: 0, level: 0, lockedUntil: monoBefore - .seconds(5)),
      "busy": LockoutState(failures: 1, level: 0),
    ])
    #expect(text == "busy 1 0 0\n")
    #expect(render(["idle": LockoutState()]) == "")
    #expect(render([:]) == "")
  }

  @Test("keypads are written in name order")
  func sortedByName() {
    let text = render([
      "zulu": LockoutState(failures: 1), "alpha": LockoutState(failures: 2),
      "mike": LockoutState(failures: 3),
    ])
    #expect(text == "alpha 2 0 0\nmike 3 0 0\nzulu 1 0 0\n")
  }

  // MARK: - Parsing

  @Test("a lock is restored on the new monotonic clock with the time it had left")
  func parseLock() {
    // 10 s of wall time passed during the restart: 20 s of the 30 s remain.
    let (states, problems) = parse("front 2 1 1700000030000\n", wallMs: wallBefore + 10_000)
    #expect(problems.isEmpty)
    #expect(
      states["front"] == LockoutState(failures: 2, level: 1, lockedUntil: monoAfter + .seconds(20))
    )
  }

  @Test("render then parse keeps failures, level and the time left")
  func roundTrip() {
    let before: [String: LockoutState] = [
      "front": LockoutState(failures: 0, level: 3, lockedUntil: monoBefore + .milliseconds(90_500)),
      "back": LockoutState(failures: 4, level: 1),
      "side": LockoutState(failures: 1, level: 2, lockedUntil: monoBefore + .seconds(900)),
    ]
    let (after, problems) = parse(render(before))
    #expect(problems.isEmpty)
    #expect(
      after == [
        "front": LockoutState(
          failures: 0, level: 3, lockedUntil: monoAfter + .milliseconds(90_500)),
        "back": LockoutState(failures: 4, level: 1),
        "side": LockoutState(failures: 1, level: 2, lockedUntil: monoAfter + .seconds(900)),
      ])
  }

  @Test("a lock that ended while the daemon was down is not restored, its counts are")
  func expiredLockNotRestored() {
    let (states, problems) = parse("front 1 2 1700000030000\n", wallMs: wallBefore + 31_000)
    #expect(problems.isEmpty)
    #expect(states["front"] == LockoutState(failures: 1, level: 2, lockedUntil: nil))
  }

  @Test("a lock ending exactly now is not restored")
  func lockEndingNow() {
    let (states, _) = parse("front 0 1 1700000000000\n")
    #expect(states["front"]?.lockedUntil == nil)
  }

  @Test("an empty file restores nothing", arguments: ["", "\n", "\n\n"])
  func emptyFile(text: String) {
    let (states, problems) = parse(text)
    #expect(states.isEmpty)
    #expect(problems.isEmpty)
  }

  @Test("a file without a final newline is read whole")
  func noFinalNewline() {
    let (states, problems) = parse("a 1 0 0\nb 2 0 0")
    #expect(problems.isEmpty)
    #expect(states["b"] == LockoutState(failures: 2))
  }

  // MARK: - Corrupt lines

  @Test(
    "a corrupt line locks its keypad for the conservative time",
    arguments: [
      "front x 1 0", "front 1 1", "front 1 1 0 9", "front -1 0 0", "front 1 -2 0",
      "front 1 1 -5", "front 1 1 99999999999999999999", "front 1.5 0 0", "front",
    ])
  func corruptLineLocks(line: String) {
    let (states, problems) = parse(line + "\nback 1 0 0\n")
    #expect(problems == ["line 1 is not NAME FAILURES LEVEL UNTIL"])
    #expect(
      states["front"] == LockoutState(failures: 0, level: 1, lockedUntil: monoAfter + conservative))
    #expect(states["back"] == LockoutState(failures: 1), "other lines still count")
  }

  @Test("the keypads of corrupt lines are marked as guessed, good lines are not")
  func corruptLinesAreGuessed() {
    let parsed = LockoutStore.parse(
      "front x 1 0\nback 1 0 0\n", nowMono: monoAfter, nowWallMs: wallBefore,
      conservative: conservative)
    #expect(parsed.guessed == ["front"])
    // A later good line for the same keypad wins and is not a guess.
    let fixed = LockoutStore.parse(
      "front x 1 0\nfront 2 0 0\n", nowMono: monoAfter, nowWallMs: wallBefore,
      conservative: conservative)
    #expect(fixed.guessed.isEmpty)
    #expect(fixed.states["front"] == LockoutState(failures: 2))
  }

  @Test(
    "numbers at the edge of Int64 are read without trapping",
    arguments: ["99999999999999", "9223372036854775807"])
  func untilFarAhead(until: String) {
    let (states, problems) = parse("default 9223372036854775807 9223372036854775807 \(until)\n")
    #expect(problems.isEmpty)
    let state = states["default"]
    #expect(state?.failures == .max)
    #expect(state?.level == .max)
    let locked = state?.lockedUntil ?? .zero
    #expect(locked > monoAfter + .seconds(100 * 365 * 86_400))
    // Written back, the time saturates too.
    #expect(render(states).hasPrefix("default 9223372036854775807 9223372036854775807 "))
  }

  @Test("a corrupt line without a readable name locks every keypad via *")
  func corruptLineWithoutName() {
    let (states, problems) = parse("a 1 0 0\n   \n")
    #expect(problems == ["line 2 is not NAME FAILURES LEVEL UNTIL"])
    #expect(states["*"]?.lockedUntil == monoAfter + conservative)
  }

  @Test("a corrupt line never unlocks a keypad")
  func corruptLineNeverUnlocks() {
    // Even a garbled copy of a line that has no lock is read as locked.
    let (states, _) = parse("front 0 0\n")
    #expect(states["front"]?.lockedUntil != nil)
  }

  @Test("problems name each bad line by its number")
  func problemLineNumbers() {
    let (_, problems) = parse("a 1 0 0\nbad\n\nc 1 0 x\n")
    #expect(
      problems == [
        "line 2 is not NAME FAILURES LEVEL UNTIL", "line 4 is not NAME FAILURES LEVEL UNTIL",
      ])
  }

  // MARK: - Names

  @Test(
    "keypad names with spaces and percent signs survive a round trip",
    arguments: ["front door", "  lead and trail  ", "100%", "%20", "a%25b c", "Tür 2", "*"])
  func namesRoundTrip(name: String) {
    let state = LockoutState(failures: 2, level: 1, lockedUntil: monoBefore + .seconds(30))
    let text = render([name: state])
    #expect(text.split(separator: " ").count == 4, "one field for the name: \(text)")
    let (states, problems) = parse(text)
    #expect(problems.isEmpty)
    #expect(
      states == [name: LockoutState(failures: 2, level: 1, lockedUntil: monoAfter + .seconds(30))])
  }

  @Test("a name with a space does not lock another keypad whose name is its first word")
  func spaceDoesNotSplitName() {
    let text = render([
      "front door": LockoutState(failures: 3), "front": LockoutState(failures: 1),
    ])
    let (states, _) = parse(text)
    #expect(states["front"] == LockoutState(failures: 1))
    #expect(states["front door"] == LockoutState(failures: 3))
  }

  @Test("a name with a stray percent sign is corrupt, so every keypad locks")
  func strayPercent() {
    let (states, problems) = parse("100% 1 0 0\n")
    #expect(problems.count == 1)
    #expect(states["*"]?.lockedUntil == monoAfter + conservative)
  }

  // Found by the lockout fuzz target (fuzz/targets/lockout.swift): U+0603 is a
  // prepending mark, so as Characters it and the space after it are one grapheme.
  @Test("a name ending in a prepending mark round-trips: fields end at every space")
  func prependingMarkInName() {
    let before = ["door\u{603}": LockoutState(failures: 2, level: 1)]
    let (after, problems) = parse(render(before))
    #expect(problems.isEmpty)
    #expect(after == before)
  }
}
