/// A point on the monotonic clock (CLOCK_MONOTONIC), in nanoseconds.
///
/// The core never reads a clock: every input carries the time it happened, so tests
/// drive time by hand. Arithmetic saturates at Int64's range instead of trapping, so a
/// time from outside (a recording, a state file) can never crash the daemon.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var nanoseconds: Int64
  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  public static let zero = Instant(nanoseconds: 0)
  public static func seconds(_ s: Double) -> Instant {
    Instant(nanoseconds: Int64.saturating(s * 1e9))
  }

  public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }
  public static func + (a: Instant, d: Duration) -> Instant {
    Instant(nanoseconds: a.nanoseconds.saturatingAdd(d.nanoseconds))
  }
  /// `self + .nanoseconds(n)` without a `Duration` (saturating as `+` does).
  public func adding(nanoseconds n: Int64) -> Instant {
    Instant(nanoseconds: nanoseconds.saturatingAdd(n))
  }
  public static func - (a: Instant, d: Duration) -> Instant {
    Instant(nanoseconds: a.nanoseconds.saturatingSubtract(d.nanoseconds))
  }
  public static func - (a: Instant, b: Instant) -> Duration {
    .nanoseconds(a.nanoseconds.saturatingSubtract(b.nanoseconds))
  }
  public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
  /// The whole duration in nanoseconds (saturating at Int64's range).
  public var nanoseconds: Int64 {
    let (s, atto) = components
    let (ns, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return s < 0 ? .min : .max }
    return ns.saturatingAdd(atto / 1_000_000_000)
  }
  /// The duration in seconds as a Double.
  public var seconds: Double { Double(nanoseconds) / 1e9 }
}

extension Int64 {
  /// `self + other`, held at `.max` / `.min` instead of overflowing.
  public func saturatingAdd(_ other: Int64) -> Int64 {
    let (sum, overflow) = addingReportingOverflow(other)
    if overflow { return other > 0 ? .max : .min }
    return sum
  }
  /// `self - other`, held at `.max` / `.min` instead of overflowing.
  public func saturatingSubtract(_ other: Int64) -> Int64 {
    let (difference, overflow) = subtractingReportingOverflow(other)
    if overflow { return other < 0 ? .max : .min }
    return difference
  }
  /// `self * other`, held at `.max` / `.min` instead of overflowing.
  public func saturatingMultiply(_ other: Int64) -> Int64 {
    let (product, overflow) = multipliedReportingOverflow(by: other)
    if overflow { return (self < 0) == (other < 0) ? .max : .min }
    return product
  }
  /// A Double rounded toward zero into Int64's range; NaN is 0.
  public static func saturating(_ value: Double) -> Int64 {
    if value.isNaN { return 0 }
    if value >= 9_223_372_036_854_775_807.0 { return .max }
    if value <= -9_223_372_036_854_775_808.0 { return .min }
    return Int64(value)
  }
}

extension Int {
  /// `self + other`, held at `.max` / `.min` instead of overflowing.
  public func saturatingAdd(_ other: Int) -> Int {
    let (sum, overflow) = addingReportingOverflow(other)
    if overflow { return other > 0 ? .max : .min }
    return sum
  }
}
