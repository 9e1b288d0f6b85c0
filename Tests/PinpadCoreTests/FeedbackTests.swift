import Testing

@testable import PinpadCore

/// The feedback patterns as timelines (pinpadd.conf(5), `Feedback=`): every change of
/// the outputs from a cue on, in milliseconds after it.
@Suite struct FeedbackTests {
  typealias State = Feedback.State
  let t0 = Instant.seconds(100)

  /// One point of a timeline: the state `ms` after t0.
  struct Change: Equatable, CustomStringConvertible {
    var ms: Int64
    var state: State
    init(_ ms: Int64, _ state: State) {
      self.ms = ms
      self.state = state
    }
    var description: String { "\(ms): \(state)" }
  }

  /// The state at t0 and at each change until nothing plays (or `limit` ms).
  func timeline(_ feedback: Feedback, limit: Int64 = 60_000) -> [Change] {
    var out = [Change(0, feedback.state(at: t0))]
    var now = t0
    while let next = feedback.nextChange(after: now) {
      let ms = (next - t0).nanoseconds / 1_000_000
      if ms > limit { break }
      out.append(Change(ms, feedback.state(at: next)))
      now = next
    }
    return out
  }

  func played(_ cues: Feedback.Cue...) -> Feedback {
    var feedback = Feedback()
    for cue in cues { feedback.cue(cue, at: t0) }
    return feedback
  }

  @Test("a key: a 25 ms click at 2 kHz, the lights untouched")
  func keyClick() {
    let line = timeline(played(.key))
    #expect(line == [Change(0, State(toneHz: 2000)), Change(25, .rest)], "\(line)")
  }

  @Test("a grant: the granted light for the door's open time, a rising two-tone")
  func grant() {
    let line = timeline(played(.granted(open: .seconds(3))))
    #expect(
      line == [
        Change(0, State(grantedLight: true, toneHz: 1000)),
        Change(120, State(grantedLight: true, toneHz: 1500)),
        Change(300, State(grantedLight: true)), Change(3000, .rest),
      ], "\(line)")
  }

  @Test("a grant on a keypad with no door of its own lights for 2 s")
  func grantWithoutDoor() {
    let line = timeline(played(.granted(open: .zero)))
    #expect(line.last?.ms == 2000)
    #expect(line.last?.state == .rest)
  }

  @Test("a denial: the denied light blinks three times (200 ms), one low 700 ms tone")
  func denial() {
    let line = timeline(played(.denied))
    let on = State(deniedLight: true)
    #expect(
      line == [
        Change(0, State(deniedLight: true, toneHz: 300)), Change(200, State(toneHz: 300)),
        Change(400, State(deniedLight: true, toneHz: 300)), Change(600, State(toneHz: 300)),
        Change(700, .rest), Change(800, on), Change(1000, .rest),
      ], "\(line)")
    #expect(line.filter { $0.state.deniedLight }.count == 3)
    #expect(!line.contains { $0.state.grantedLight })
  }

  @Test("a lockout blinks the denied light every second until it ends, then stops")
  func lockout() {
    let line = timeline(played(.locked(until: t0 + .milliseconds(2200))))
    let on = State(deniedLight: true)
    #expect(
      line == [
        Change(0, on), Change(500, .rest), Change(1000, on), Change(1500, .rest), Change(2000, on),
        Change(2200, .rest),
      ],
      "\(line)")
  }

  @Test("a lockout already over shows nothing; one cleared early goes out at once")
  func lockoutOverOrCleared() {
    #expect(played(.locked(until: t0)).isIdle)
    var feedback = played(.locked(until: t0 + .seconds(60)))
    #expect(feedback.state(at: t0 + .milliseconds(100)).deniedLight)
    feedback.cue(.unlocked, at: t0 + .milliseconds(100))
    #expect(feedback.state(at: t0 + .milliseconds(100)) == .rest)
    #expect(feedback.isIdle)
  }

  @Test("unlocked leaves a denial's blinks and a grant's light alone")
  func unlockedOnlyEndsALockout() {
    var feedback = played(.denied)
    feedback.cue(.unlocked, at: t0)
    #expect(feedback.state(at: t0).deniedLight)
    feedback = played(.granted(open: .seconds(1)))
    feedback.cue(.unlocked, at: t0)
    #expect(feedback.state(at: t0).grantedLight)
  }

  @Test("a key during a lockout clicks and leaves the slow blink as it was")
  func keyDuringLockout() {
    var feedback = Feedback()
    feedback.cue(.locked(until: t0 + .seconds(10)), at: t0)
    feedback.cue(.key, at: t0 + .milliseconds(100))
    #expect(feedback.state(at: t0 + .milliseconds(110)) == State(deniedLight: true, toneHz: 2000))
    #expect(feedback.state(at: t0 + .milliseconds(600)) == .rest)
    #expect(feedback.state(at: t0 + .milliseconds(1100)) == State(deniedLight: true))
  }

  @Test("a grant after a denial replaces its blinks; its tone replaces the denial's")
  func newPatternReplacesOld() {
    var feedback = Feedback()
    feedback.cue(.denied, at: t0)
    feedback.cue(.granted(open: .seconds(1)), at: t0 + .milliseconds(250))
    let state = feedback.state(at: t0 + .milliseconds(300))
    #expect(state == State(grantedLight: true, toneHz: 1000))
  }

  @Test("every key gives the same click: nothing tells one digit from another")
  func keysAlike() {
    var a = Feedback()
    var b = Feedback()
    a.cue(.key, at: t0)
    b.cue(.key, at: t0)
    #expect(a == b)
    #expect(timeline(a) == timeline(b))
  }

  @Test("settle drops what has ended; an idle keypad holds nothing")
  func settleDropsEnded() {
    var feedback = played(.granted(open: .seconds(1)))
    feedback.settle(at: t0 + .milliseconds(500))
    #expect(!feedback.isIdle)
    feedback.settle(at: t0 + .seconds(1))
    #expect(feedback.isIdle)
    #expect(feedback.nextChange(after: t0 + .seconds(1)) == nil)
  }

  @Test("times at the ends of the clock neither trap nor play forever")
  func extremeTimes() {
    var feedback = Feedback()
    let late = Instant(nanoseconds: .max - 1000)
    feedback.cue(.locked(until: Instant(nanoseconds: .max)), at: late)
    _ = feedback.state(at: late)
    _ = feedback.nextChange(after: late)
    feedback.cue(.granted(open: .seconds(10)), at: late)
    #expect(feedback.state(at: late).grantedLight)
    var early = Feedback()
    early.cue(.locked(until: Instant(nanoseconds: .max)), at: Instant(nanoseconds: .min))
    #expect(early.state(at: Instant(nanoseconds: .min)).deniedLight)
    _ = early.state(at: Instant(nanoseconds: .max - 1))
  }

  @Test("a door shows its keypads combined: a light if any shows it, the highest tone")
  func combined() {
    typealias S = Feedback.State
    #expect(S.combined([S]()) == .rest)
    #expect(S.combined([.rest, .rest]) == .rest)
    #expect(
      S.combined([S(grantedLight: true, toneHz: 1000), S(deniedLight: true), S(toneHz: 2000)])
        == S(grantedLight: true, deniedLight: true, toneHz: 2000))
    #expect(S.combined([S(deniedLight: true, toneHz: 300)]) == S(deniedLight: true, toneHz: 300))
  }
}

/// Which effects are cues, for which keypad (FeedbackCues).
@Suite struct FeedbackCuesTests {
  let now = Instant.seconds(50)
  func open(_ keypad: String) -> Duration { keypad == "front" ? .seconds(4) : .zero }

  @Test("each accepted key clicks: digits, backspace, clear and the submit; not a timeout")
  func keys() {
    var cues = FeedbackCues()
    for event in [EntryEvent.started, .changed, .deleted, .cleared] {
      let cue = cues.cue(
        for: .broadcast(.entry(keypad: "front", event: event, length: 1)), now: now, openTime: open)
      #expect(cue?.keypad == "front" && cue?.cue == .key)
    }
    for event in [EntryEvent.timeout, .rejected, .cardRead] {
      #expect(
        cues.cue(
          for: .broadcast(.entry(keypad: "front", event: event, length: 0)), now: now,
          openTime: open) == nil)
    }
  }

  @Test("a verdict is played on the keypad of its attempt; granted for its doors' open time")
  func verdicts() {
    var cues = FeedbackCues()
    let digits = SecretDigits()
    #expect(
      cues.cue(
        for: .sendCode(id: "a", keypad: "front", digits: digits, card: nil), now: now,
        openTime: open)?.cue == .key)
    #expect(
      cues.cue(
        for: .sendCode(id: "b", keypad: "side", digits: digits, card: nil), now: now, openTime: open
      )?.keypad == "side")
    let granted = cues.cue(
      for: .broadcast(.verdict(id: "a", result: .granted)), now: now, openTime: open)
    #expect(granted?.keypad == "front" && granted?.cue == .granted(open: .seconds(4)))
    let denied = cues.cue(
      for: .broadcast(.verdict(id: "b", result: .denied, reason: "unknown")), now: now,
      openTime: open)
    #expect(denied?.keypad == "side" && denied?.cue == .denied)
    // Decided: a second verdict for the same id is no cue.
    #expect(
      cues.cue(for: .broadcast(.verdict(id: "a", result: .granted)), now: now, openTime: open)
        == nil)
    #expect(
      cues.cue(for: .broadcast(.verdict(id: "zz", result: .denied)), now: now, openTime: open)
        == nil)
  }

  @Test("no answer in time plays as a denial; a duress alarm is no cue of its own")
  func timeoutAndDuress() {
    var cues = FeedbackCues()
    _ = cues.cue(
      for: .sendCode(id: "t", keypad: "front", digits: SecretDigits(), card: nil), now: now,
      openTime: open)
    #expect(
      cues.cue(for: .broadcast(.verdict(id: "t", result: .timeout)), now: now, openTime: open)?.cue
        == .denied)
    #expect(
      cues.cue(
        for: .broadcast(.alarm(reason: "duress", keypad: "front", id: "t")), now: now,
        openTime: open) == nil)
  }

  @Test("a lockout blinks until it ends; 0 s ends it")
  func lockouts() {
    var cues = FeedbackCues()
    let locked = cues.cue(
      for: .broadcast(.lockout(keypad: "front", seconds: 30)), now: now, openTime: open)
    #expect(locked?.cue == .locked(until: now + .seconds(30)))
    #expect(
      cues.cue(for: .broadcast(.lockout(keypad: "front", seconds: 0)), now: now, openTime: open)?
        .cue == .unlocked)
  }

  @Test("at most 256 attempts are remembered: the oldest goes first")
  func bounded() {
    var cues = FeedbackCues()
    for n in 0...FeedbackCues.maxWaiting {
      _ = cues.cue(
        for: .sendCode(id: "i\(n)", keypad: "k", digits: SecretDigits(), card: nil), now: now,
        openTime: open)
    }
    #expect(
      cues.cue(for: .broadcast(.verdict(id: "i0", result: .denied)), now: now, openTime: open)
        == nil)
    #expect(
      cues.cue(for: .broadcast(.verdict(id: "i1", result: .denied)), now: now, openTime: open)
        != nil)
  }
}
