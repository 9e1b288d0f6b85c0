/// When the lockout file (`LockoutStore`) is written, as a value: the states as last
/// known, what the file holds, and a failed write's retry (pinpadd(8), OPTIONS,
/// --state-dir). The Session records each keypad's state and asks `save(at:)` whether
/// a write is due; the shell writes and the answer comes back to `saved(failure:now:)`.
public struct LockoutSaving {
  /// How long a failed save waits before it is tried again.
  public static let retryInterval: Duration = .seconds(5)

  /// False with `--state-dir none`: states are kept, never written.
  public let persistent: Bool
  /// The states read at start, brought up to date by `record`.
  public private(set) var saved: SavedLockouts
  /// What the file holds (in `persistable` form), nil when unknown.
  public private(set) var written: [String: LockoutState]?
  /// Why the last save failed, nil when the file is up to date.
  public private(set) var error: String? = nil
  /// When a failed save is tried again, nil when none failed.
  public private(set) var retry: Instant? = nil

  /// What a save's answer changed (`saved(failure:now:)`), for the log.
  public enum Outcome: Equatable, Sendable {
    /// Written, as the one before it was.
    case saved
    /// Written after a failed save: the file is up to date again.
    case savedAgain
    /// Not written, because of `reason`: `first` when the one before it was.
    case failed(reason: String, first: Bool)
  }

  public init(_ saved: SavedLockouts, persistent: Bool) {
    self.saved = saved
    self.persistent = persistent
    written = saved.fileDiffers ? nil : Self.persistable(saved.states, now: .zero)
  }

  /// The state a keypad starts with (`SavedLockouts.state(for:)`).
  public func state(for keypad: String) -> LockoutState { saved.state(for: keypad) }

  /// Keypad `name` is in `state` now: its own line, no longer a guess.
  public mutating func record(_ state: LockoutState, for name: String) {
    saved.states[name] = state
    if !saved.guessed.isEmpty { saved.guessed.remove(name) }
  }

  /// The states to write at entry time `at`, nil when the file already holds them (and
  /// the last write worked) or nothing is written. A conservative lock for an
  /// unreadable file ("*") or a corrupt line ends with its lock: a garbled name is not
  /// kept in the file as a keypad.
  public mutating func save(at: Instant) -> [String: LockoutState]? {
    if !saved.guessed.isEmpty {
      for name in saved.guessed { forgetEndedGuess(name, at: at) }
    }
    forgetEndedGuess("*", at: at)
    guard persistent else { return nil }
    let content = Self.persistable(saved.states, now: at)
    guard content != written || error != nil else { return nil }
    written = content
    retry = nil
    return saved.states
  }

  /// The shell's answer to a save: nil when the file was written, else why not (then
  /// it is tried again `retryInterval` after monotonic `now`, and whatever it holds is
  /// unknown).
  public mutating func saved(failure: String?, now: Instant) -> Outcome {
    let failedBefore = error != nil
    guard let failure else {
      error = nil
      retry = nil
      return failedBefore ? .savedAgain : .saved
    }
    error = failure
    written = nil
    retry = now + Self.retryInterval
    return .failed(reason: failure, first: !failedBefore)
  }

  /// True when a failed save is due again at monotonic `now`.
  public func retryDue(now: Instant) -> Bool { retry.map { $0 <= now } ?? false }

  private mutating func forgetEndedGuess(_ name: String, at: Instant) {
    if let state = saved.states[name], state.lockedUntil.map({ $0 <= at }) ?? true {
      saved.states[name] = nil
      saved.guessed.remove(name)
    }
  }

  /// The states as the file says them: no empty lines, no lock that has ended.
  static func persistable(_ states: [String: LockoutState], now: Instant)
    -> [String: LockoutState]
  {
    var out: [String: LockoutState] = [:]
    for (name, var state) in states {
      if let until = state.lockedUntil, until <= now { state.lockedUntil = nil }
      if state == LockoutState() { continue }
      out[name] = state
    }
    return out
  }
}
