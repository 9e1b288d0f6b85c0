/// The entry machines' and the screen's time: the monotonic clock, unless an input's
/// stamps pushed it ahead (a fast replay stamps keys with their recorded offsets); it then
/// keeps running from there, and never goes back.
public struct EntryClock: Equatable, Sendable {
  /// The latest entry time handed out.
  public private(set) var now = Instant.zero
  /// How far it runs ahead of the monotonic clock, in nanoseconds, never negative (a
  /// `Duration`'s arithmetic is 128-bit, and this is read after every batch).
  public private(set) var lead: Int64 = 0

  public init() {}

  /// The entry time at monotonic `monotonic`: never behind one already handed out.
  public mutating func time(at monotonic: Instant) -> Instant {
    now = max(now, monotonic.adding(nanoseconds: lead))
    return now
  }

  /// An input event stamped `stamp` at monotonic `monotonic`: the entry gets that time
  /// (or the last one, if it is older); a stamp ahead of the clock moves the lead.
  public mutating func advance(to stamp: Instant, monotonic: Instant) -> Instant {
    lead = max(lead, stamp.nanoseconds.saturatingSubtract(monotonic.nanoseconds))
    now = max(now, stamp)
    return now
  }

  /// Entry time `entry` on the monotonic clock.
  public func monotonic(_ entry: Instant) -> Instant { entry.adding(nanoseconds: -lead) }
}
