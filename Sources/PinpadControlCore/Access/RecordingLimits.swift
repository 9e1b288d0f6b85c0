import PinpadCore

/// What the shells that write decisions somewhere (the site's access log, a door's own
/// log, the site's replica generations) share about saying and limiting it. Pure: the
/// shells own the files and the clock.

/// Something retried at every use (a database write): its failure is said once, and so
/// is its recovery, however often each attempt fails or works in between.
public struct Outage: Equatable, Sendable {
  public private(set) var isOngoing = false
  public init() {}

  /// An attempt failed: true the first time since it last worked (say so then).
  public mutating func failed() -> Bool {
    defer { isOngoing = true }
    return !isOngoing
  }

  /// An attempt worked: true when it had been failing (say that it works again).
  public mutating func worked() -> Bool {
    defer { isOngoing = false }
    return isOngoing
  }
}

/// Denials the lockout gives unchecked (`locked`) cost an attacker nothing, so a flood of
/// them must not fill a disk: the first `burst` at once are recorded, then one every
/// `intervalMs` (a GCRA); the others are answered but not recorded, and the next one
/// recorded says how many were left out.
public struct LockedDenialLimit: Equatable, Sendable {
  public static let burst = 100
  public static let intervalMs: Int64 = 1000
  /// When the bucket would be full again (ms); nil before the first.
  private var due: Int64? = nil
  public private(set) var skipped = 0
  public init() {}

  /// Whether a `locked` denial at `at` (ms) is recorded; when it is, `held` is how many
  /// were left out before it (to say), and the count starts again.
  public mutating func admit(at: Int64) -> (record: Bool, held: Int) {
    let due = max(self.due ?? at, at)
    if due - at >= LockedDenialLimit.intervalMs * Int64(LockedDenialLimit.burst) {
      skipped += 1
      return (false, 0)
    }
    self.due = due + LockedDenialLimit.intervalMs
    defer { skipped = 0 }
    return (true, skipped)
  }

  /// The line for `held` denials left out.
  public static func heldLine(_ held: Int) -> LogLine {
    .info("\(held) denials while locked were answered but not recorded (a flood)")
  }
}
