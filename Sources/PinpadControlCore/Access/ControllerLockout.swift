import PinpadCore

/// The controller's own lockout (reason `locked`, docs/protocol.md, "Socket: denial
/// reasons"), so that `pinpadctl serve` is never a guessing oracle for codes that reach
/// it over MQTT or from a keypad whose daemon does not lock:
/// - per place (a keypad, or DEVICE/KEYPAD in a fleet), the daemon's rules
///   (pinpadd.conf(5), [Lockout]): after MaxFailures consecutive denials the place is
///   locked for LockoutSec, doubling per further lockout up to LockoutMaxSec; a grant
///   resets the count and the doubling;
/// - for all places together, a bound on checks that end denied (`GlobalBound`), so that
///   inventing keypad names buys no more guesses than a few keypads would.
/// While either is in force a code is denied without being checked, at no crypt(3) cost.
/// The per-place states are what `LockoutStore` keeps in the controller's state directory.
public struct ControllerLockout: Sendable {
  /// At most `burst` denials at once across every place, then one every `interval`.
  public struct GlobalBound: Equatable, Sendable {
    public var burst: Int
    public var interval: Duration
    public init(burst: Int, interval: Duration) {
      self.burst = burst
      self.interval = interval
    }
    /// 50 denials at once, then one every 5 s (720 an hour for the whole fleet).
    public static let standard = GlobalBound(burst: 50, interval: .seconds(5))
  }

  public enum Admission: Equatable, Sendable {
    /// Check the code.
    case check
    /// Deny it unchecked: the place is locked (or, `global`, every place is).
    case locked(global: Bool)
  }

  /// Places kept at most: past this a new place is only admitted once an unlocked one
  /// can be forgotten (a flood of invented keypad names cannot grow memory or the file).
  public static let maxPlaces = 4096

  public var rules: LockoutConfig
  public var global: GlobalBound
  public private(set) var states: [String: LockoutState]
  /// GCRA: when the global bound would be back to a full burst.
  private var globalDue: Instant? = nil

  public init(
    rules: LockoutConfig, global: GlobalBound = .standard, states: [String: LockoutState] = [:]
  ) {
    self.rules = rules
    self.global = global
    self.states = states
  }

  /// Whether a code from `place` may be checked at `now`. A state named `*` (a lockout
  /// file whose names could not be read) locks every place.
  public mutating func admit(_ place: String, now: Instant) -> Admission {
    if place != "*", states["*"] != nil, admit("*", now: now) != .check {
      return .locked(global: false)
    }
    if var state = states[place], let until = state.lockedUntil {
      // A lock restored from the file never runs longer than LockoutMaxSec from now.
      let longest = now + rules.lockoutMax
      if until > longest { state.lockedUntil = longest }
      if state.lockedUntil! > now {
        states[place] = state
        return .locked(global: false)
      }
      state.lockedUntil = nil
      states[place] = state
    }
    if let due = globalDue, due - now >= global.interval * global.burst {
      return .locked(global: true)
    }
    if states[place] == nil, states.count >= Self.maxPlaces, !forgetOne(now: now) {
      return .locked(global: true)
    }
    return .check
  }

  /// Records the verdict of a code that was checked. Returns the length of the lockout
  /// that this denial started, nil when none did.
  public mutating func record(_ place: String, granted: Bool, now: Instant) -> Duration? {
    var state = states[place] ?? LockoutState()
    if granted {
      states[place] = nil
      return nil
    }
    let base = max(globalDue ?? now, now)
    globalDue = base + global.interval
    state.failures = state.failures.saturatingAdd(1)
    guard rules.maxFailures > 0, state.failures >= rules.maxFailures else {
      states[place] = state
      return nil
    }
    state.failures = 0
    state.level = state.level < Int.max ? max(state.level, 0) + 1 : state.level
    let length = rules.lockoutLength(level: state.level)
    if length > .zero { state.lockedUntil = now + length }
    states[place] = state
    return length > .zero ? length : nil
  }

  /// Drops the unlocked place with the fewest failures; false when every place is locked.
  private mutating func forgetOne(now: Instant) -> Bool {
    let unlocked = states.filter { ($0.value.lockedUntil ?? now) <= now }
    guard
      let victim = unlocked.min(by: {
        ($0.value.level, $0.value.failures) < ($1.value.level, $1.value.failures)
      })
    else { return false }
    states[victim.key] = nil
    return true
  }
}
