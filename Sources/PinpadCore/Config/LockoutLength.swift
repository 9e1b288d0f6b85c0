extension LockoutConfig {
  /// The length of lockout number `level` (from 1): LockoutSec × 2^(level-1), capped at
  /// LockoutMaxSec (pinpadd.conf(5), [Lockout]). Shared by the daemon's keypads and the
  /// controller.
  public func lockoutLength(level: Int) -> Duration {
    let cap = lockoutMax.nanoseconds
    var length = lockout.nanoseconds
    guard length > 0 else { return .zero }
    var doublings = max(level - 1, 0)
    while doublings > 0 && length < cap {
      let (twice, overflow) = length.multipliedReportingOverflow(by: 2)
      if overflow { return .nanoseconds(cap) }
      length = twice
      doublings -= 1
    }
    return .nanoseconds(min(length, cap))
  }
}
