/// A point on the monotonic clock (CLOCK_MONOTONIC), in nanoseconds.
///
/// The core never reads a clock: every input carries the time it happened, so tests
/// drive time by hand.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var nanoseconds: Int64
  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  public static let zero = Instant(nanoseconds: 0)
  public static func seconds(_ s: Double) -> Instant { Instant(nanoseconds: Int64(s * 1e9)) }

  public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }
  public static func + (a: Instant, d: Duration) -> Instant {
    Instant(nanoseconds: a.nanoseconds + d.nanoseconds)
  }
  public static func - (a: Instant, d: Duration) -> Instant {
    Instant(nanoseconds: a.nanoseconds - d.nanoseconds)
  }
  public static func - (a: Instant, b: Instant) -> Duration {
    .nanoseconds(a.nanoseconds - b.nanoseconds)
  }
  public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
  /// The whole duration in nanoseconds (saturating at Int64's range).
  public var nanoseconds: Int64 {
    let (s, atto) = components
    let (ns, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return s < 0 ? .min : .max }
    return ns &+ atto / 1_000_000_000
  }
  /// The duration in seconds as a Double.
  public var seconds: Double { Double(nanoseconds) / 1e9 }
}
