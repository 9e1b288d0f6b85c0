import PinpadCore

/// Tells when another client keeps taking this ClientID: said once per run of
/// takeovers, at the first MQTT 5 "session taken over", or (3.1.1, where the broker
/// just closes) at the third connection in a row lost within 5 s of its CONNACK.
public struct TakeoverWatch: Sendable {
  public init() {}
  public static let quickLoss: Duration = .seconds(5)
  public static let quickLossesToTell = 3
  private var connectedAt: Instant? = nil
  private var quickLosses = 0
  private var told = false

  public mutating func connected(at now: Instant) { connectedAt = now }

  /// True when the one line should be logged now.
  public mutating func lost(at now: Instant, sessionTakenOver: Bool) -> Bool {
    defer { connectedAt = nil }
    let quick = connectedAt.map { now - $0 < TakeoverWatch.quickLoss } ?? false
    if !quick && !sessionTakenOver {
      // A connection that lasted: whatever took it over has gone away.
      quickLosses = 0
      told = false
      return false
    }
    quickLosses += 1
    guard !told, sessionTakenOver || quickLosses >= TakeoverWatch.quickLossesToTell else {
      return false
    }
    told = true
    return true
  }
}
