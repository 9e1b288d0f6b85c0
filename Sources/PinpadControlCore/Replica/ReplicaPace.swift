import PinpadCore

/// How often a door checks the replicas it receives, so that a flood of them (each up to
/// 16 MiB to parse and verify) costs bounded CPU: a burst of `burst` at once, then one
/// every `interval` (GCRA). The shell keeps only the latest replica that has to wait
/// (bounded memory): a newer generation makes the ones before it moot.
public struct ReplicaPace: Equatable, Sendable {
  public let burst: Int
  public let interval: Duration
  /// When the bucket would be empty again (the GCRA's theoretical arrival time).
  private var due: Instant? = nil

  public init(burst: Int = 4, interval: Duration = .seconds(2)) {
    precondition(burst >= 1, "a burst of at least one")
    self.burst = burst
    self.interval = interval
  }

  private var tolerance: Duration { interval * (burst - 1) }

  /// Whether a replica may be checked at `now`; counted when so.
  public mutating func admit(now: Instant) -> Bool {
    let arrival = max(due ?? now, now)
    guard arrival - now <= tolerance else { return false }
    due = arrival + interval
    return true
  }

  /// When the next one may be checked (`now` or later).
  public func nextAt(now: Instant) -> Instant {
    max(now, max(due ?? now, now) - tolerance)
  }
}
