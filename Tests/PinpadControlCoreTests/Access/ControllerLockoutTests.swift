import PinpadControlCore
import PinpadCore
import Testing

/// The controller's own lockout (reason `locked`, docs/protocol.md, "Codes file:
/// matching"; the rules of pinpadd.conf(5), [Lockout]), on the manual clock.
@Suite struct ControllerLockoutTests {
  static var rules: LockoutConfig {
    var rules = LockoutConfig()
    rules.maxFailures = 3
    rules.lockout = .seconds(30)
    rules.lockoutMax = .seconds(100)
    return rules
  }
  static let t0 = Instant(nanoseconds: 1_000_000_000_000)

  /// Three denials at `now` on `place`: the lockout the third started.
  static func deny3(_ lockout: inout ControllerLockout, _ place: String, _ now: Instant)
    -> Duration?
  {
    var started: Duration? = nil
    for _ in 0..<3 {
      #expect(lockout.admit(place, now: now) == .check)
      started = lockout.record(place, granted: false, now: now)
    }
    return started
  }

  @Test("MaxFailures denials lock the place for LockoutSec, doubling up to LockoutMaxSec")
  func locksAndDoubles() {
    var lockout = ControllerLockout(rules: Self.rules)
    var now = Self.t0
    #expect(Self.deny3(&lockout, "d1/lobby", now) == .seconds(30))
    #expect(lockout.admit("d1/lobby", now: now + .seconds(29)) == .locked(global: false))
    #expect(lockout.admit("d1/other", now: now) == .check, "another keypad is not locked")
    now = now + .seconds(30)
    #expect(Self.deny3(&lockout, "d1/lobby", now) == .seconds(60))
    now = now + .seconds(60)
    #expect(Self.deny3(&lockout, "d1/lobby", now) == .seconds(100), "capped at LockoutMaxSec")
  }

  @Test("a grant resets the count and the doubling")
  func grantResets() {
    var lockout = ControllerLockout(rules: Self.rules)
    var now = Self.t0
    _ = Self.deny3(&lockout, "k", now)
    now = now + .seconds(30)
    #expect(lockout.admit("k", now: now) == .check)
    _ = lockout.record("k", granted: true, now: now)
    #expect(lockout.states["k"] == nil)
    #expect(Self.deny3(&lockout, "k", now) == .seconds(30))
  }

  @Test("a lock read back from the file holds, but never longer than LockoutMaxSec from now")
  func restoredLock() {
    let saved = ["k": LockoutState(failures: 0, level: 1, lockedUntil: Self.t0 + .seconds(10_000))]
    var lockout = ControllerLockout(rules: Self.rules, states: saved)
    #expect(lockout.admit("k", now: Self.t0) == .locked(global: false))
    #expect(lockout.admit("k", now: Self.t0 + .seconds(101)) == .check)
    let garbled = ["*": LockoutState(failures: 0, level: 1, lockedUntil: Self.t0 + .seconds(5))]
    var all = ControllerLockout(rules: Self.rules, states: garbled)
    #expect(all.admit("any", now: Self.t0) == .locked(global: false), "* locks every place")
    #expect(all.admit("any", now: Self.t0 + .seconds(5)) == .check)
  }

  @Test("inventing keypad names buys no more than the global bound of denials")
  func globalBound() {
    var lockout = ControllerLockout(
      rules: Self.rules, global: .init(burst: 10, interval: .seconds(5)))
    let now = Self.t0
    for n in 0..<10 {
      #expect(lockout.admit("fake\(n)", now: now) == .check)
      _ = lockout.record("fake\(n)", granted: false, now: now)
    }
    #expect(lockout.admit("fake10", now: now) == .locked(global: true))
    #expect(lockout.admit("real", now: now) == .locked(global: true))
    #expect(lockout.admit("real", now: now + .seconds(5)) == .check, "one more every 5 s")
    _ = lockout.record("real", granted: false, now: now + .seconds(5))
    #expect(lockout.admit("real", now: now + .seconds(5)) == .locked(global: true))
  }

  @Test("the places kept are bounded; when all are locked a new one is refused")
  func boundedPlaces() {
    var lockout = ControllerLockout(
      rules: Self.rules, global: .init(burst: 100_000, interval: .nanoseconds(1)))
    for n in 0..<ControllerLockout.maxPlaces {
      _ = Self.deny3(&lockout, "p\(n)", Self.t0)
    }
    #expect(lockout.states.count == ControllerLockout.maxPlaces)
    #expect(lockout.admit("new", now: Self.t0) == .locked(global: true))
    #expect(lockout.admit("new", now: Self.t0 + .seconds(31)) == .check)
    #expect(lockout.states.count < ControllerLockout.maxPlaces)
  }

  @Test("the daemon's and the controller's lockout lengths are one rule")
  func lengths() {
    #expect(Self.rules.lockoutLength(level: 1) == .seconds(30))
    #expect(Self.rules.lockoutLength(level: 2) == .seconds(60))
    #expect(Self.rules.lockoutLength(level: Int.max) == .seconds(100))
  }
}
