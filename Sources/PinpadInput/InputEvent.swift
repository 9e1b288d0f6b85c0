import PinpadCore
import PinpadSystem

/// One evdev event (`struct input_event`) as plain Swift: a CLOCK_MONOTONIC time and
/// the kernel's type, code and value.
public struct InputEvent: Equatable, Hashable, Sendable {
  public var time: Instant
  /// `EV_SYN` 0, `EV_KEY` 1, `EV_REL` 2, `EV_ABS` 3, `EV_MSC` 4 ...
  public var type: UInt16
  public var code: UInt16
  /// For keys: 1 press, 0 release, 2 autorepeat.
  public var value: Int32

  public init(time: Instant, type: UInt16, code: UInt16, value: Int32) {
    self.time = time
    self.type = type
    self.code = code
    self.value = value
  }

  public static let synType = EvdevCode.evSyn
  public static let keyType = EvdevCode.evKey
  public static let relType: UInt16 = 2
  public static let absType: UInt16 = 3

  /// An `EV_KEY` event's key.
  public var key: KeyCode? { type == Self.keyType ? KeyCode(code) : nil }
}

/// What one `EvdevDevice.readEvents()` call found.
public struct InputBatch: Equatable, Sendable {
  /// The events read, in order, without those of keys that were already down when the
  /// device was opened (or when it was resynchronised) until their release.
  public var events: [InputEvent] = []
  /// The kernel dropped events (`SYN_DROPPED`): the device was resynchronised, and any
  /// partial entry on this keypad must be wiped.
  public var dropped = false
  /// Where in `events` the kernel's drop happened: events before it were read before
  /// the SYN_DROPPED, events from it on after the resync.
  public var droppedIndex: Int? = nil
  /// The device is gone (unplugged: ENODEV, a hang-up, or the fd is no longer valid).
  /// Stop polling its fd and close it; it never becomes readable again.
  public var gone = false

  public init(events: [InputEvent] = [], dropped: Bool = false, gone: Bool = false) {
    self.events = events
    self.dropped = dropped
    self.gone = gone
  }
}
