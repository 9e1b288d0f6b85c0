import PinpadCore
import Testing

/// Numbers from outside at the edges of Int64: they saturate or are refused, never trap.
@Suite("Arithmetic at the extremes")
struct ArithmeticExtremesTests {
  @Test("instant arithmetic saturates at Int64's range")
  func instantSaturates() {
    let last = Instant(nanoseconds: .max)
    let first = Instant(nanoseconds: .min)
    #expect(last + .seconds(1) == last)
    #expect(first - Duration.seconds(1) == first)
    #expect((last - first).nanoseconds == .max)
    #expect((first - last).nanoseconds == .min)
    #expect(Instant(nanoseconds: 5) + .nanoseconds(Int64.max) == last)
    #expect(Instant.seconds(1e300) == last)
    #expect(Instant.seconds(-.infinity) == first)
    #expect(Instant.seconds(.nan) == .zero)
  }

  @Test("a duration beyond 2^63 ns reads as the largest")
  func durationSaturates() {
    #expect(Duration.seconds(Int64.max).nanoseconds == .max)
    #expect(Duration.seconds(9_223_372_037).nanoseconds == .max)
    #expect(Duration.seconds(-9_223_372_037).nanoseconds == .min)
    #expect(Duration.seconds(9_223_372_036).nanoseconds == 9_223_372_036_000_000_000)
    #expect(Duration.nanoseconds(Int64.max).nanoseconds == .max)
  }

  @Test("saturating integer helpers hold at the ends and are exact in between")
  func helpers() {
    #expect(Int64.max.saturatingAdd(1) == .max)
    #expect(Int64.min.saturatingAdd(-1) == .min)
    #expect(Int64.min.saturatingSubtract(1) == .min)
    #expect(Int64.max.saturatingSubtract(-1) == .max)
    #expect(Int64.max.saturatingMultiply(2) == .max)
    #expect(Int64.min.saturatingMultiply(2) == .min)
    #expect(Int64.min.saturatingMultiply(-1) == .max)
    #expect(Int64(-3).saturatingMultiply(4) == -12)
    #expect(Int64(40).saturatingAdd(2) == 42)
    #expect(Int.max.saturatingAdd(1) == .max)
  }

  @Test("a recording time of 9223372037 s is refused with its line, not trapped")
  func recordingTimeTooLarge() {
    let text = "E: 9223372037.000000 0001 004f 0001\n"
    #expect(throws: RecordingError.self) { try EvemuRecording.parse(text, path: "r") }
    do {
      _ = try EvemuRecording.parse(text, path: "r")
    } catch {
      #expect(error.description.hasPrefix("r:1: time 9223372037.000000 is past the largest one"))
    }
    #expect(throws: RecordingError.self) {
      try EvemuRecording.parse("E: 999999999999.999999 0001 004f 0001\n", path: "r")
    }
  }

  @Test("two events about 2^63 ns apart are read, their offset exact")
  func recordingEventsFarApart() throws {
    let text = """
      E: 0.000000 0001 004f 0001
      E: \(EvemuRecording.maxSeconds).999999999 0001 004f 0000
      """
    let events = try EvemuRecording.parse(text, path: "r")
    #expect(events.count == 2)
    #expect(events[1].time.nanoseconds == EvemuRecording.maxSeconds * 1_000_000_000 + 999_999_999)
    // Played from any start, the time saturates instead of overflowing.
    #expect(Instant(nanoseconds: 1 << 62) + events[1].time == Instant(nanoseconds: .max))
  }

  @Test("a denial with failures at Int.max does not trap and still locks")
  func failuresAtMax() {
    var script = EntryScript(state: LockoutState(failures: .max, level: .max))
    _ = script.run("1 2 3 4 ENTER denied")
    // The count saturates at Int.max, reaches MaxFailures, and restarts with the lockout.
    #expect(script.machine.lockoutState.failures == 0)
    #expect(script.machine.lockoutState.level == .max)
    if case .locked = script.machine.phase {
    } else {
      Issue.record("expected a lockout, got \(script.machine.phase)")
    }
  }

  @Test("a lock restored ~292 years ahead is cut to LockoutMaxSec at the first event")
  func lockFarAhead() {
    var script = EntryScript(state: LockoutState(level: 1, lockedUntil: Instant(nanoseconds: .max)))
    _ = script.run("1")
    guard case .locked(let until) = script.machine.phase else {
      Issue.record("expected locked, got \(script.machine.phase)")
      return
    }
    #expect(until - script.now <= LockoutConfig.testing().lockoutMax)
  }

  @Test("a JSON number beyond a double's range is named as such, not as malformed JSON")
  func jsonNumberOutOfRange() {
    for number in ["1e400", "-1e400", "1" + String(repeating: "0", count: 400)] {
      let line = #"{"type":"status","n":"# + number + "}"
      guard case .failure(let error) = ClientRequest.parse(Array(line.utf8)) else {
        Issue.record("\(number) accepted")
        continue
      }
      #expect(error.reason.hasPrefix("number out of range"), "\(error.reason)")
      #expect(!error.reason.contains("malformed"))
    }
  }
}
