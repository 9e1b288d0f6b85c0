import PinpadCore

/// The wait before the next connection attempt: 1 s, doubling to a ceiling of 30 s,
/// back to 1 s after a success.
public struct Backoff: Equatable, Sendable {
  public let initial: Duration
  public let ceiling: Duration
  private var current: Duration

  public init(initial: Duration = .seconds(1), ceiling: Duration = .seconds(30)) {
    self.initial = initial
    self.ceiling = ceiling
    current = initial
  }

  /// The wait for this failure; the next one waits twice as long, up to the ceiling.
  public mutating func next() -> Duration {
    defer { current = min(current * 2, ceiling) }
    return current
  }

  public mutating func reset() { current = initial }
}
