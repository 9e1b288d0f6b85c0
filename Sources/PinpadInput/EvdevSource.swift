import CLibevdev
import Glibc
import PinpadCore
import PinpadSystem

/// Where `EvdevDevice` gets events and key state from: libevdev on a real node, or
/// another reader of `struct input_event` records (the tests' `RecordPipeSource` reads
/// them from a pipe: libevdev cannot be initialised on a pipe, `libevdev_set_fd` asks the
/// fd for its capabilities with evdev ioctls).
public protocol EvdevSource: AnyObject {
  /// The descriptor to poll for events.
  var fd: Int32 { get }
  var name: String { get }
  var phys: String { get }
  var ids: (vendor: UInt16, product: UInt16, bustype: UInt16) { get }
  func has(type: Int32, code: Int) -> Bool
  /// Whether key `code` is down.
  func isDown(_ code: Int) -> Bool
  /// An absolute axis' absinfo minimum and maximum, nil when unknown.
  func absoluteRange(_ code: Int) -> AxisRange?
  /// The next event: `libevdev_next_event` semantics, i.e. 0 with an event, 1
  /// (`LIBEVDEV_READ_STATUS_SYNC`) for SYN_DROPPED in normal mode or a resync event in
  /// sync mode, or -errno (-EAGAIN: nothing more, or in sync mode: resync finished).
  func next(sync: Bool, _ event: inout input_event) -> Int32
  /// EVIOCGRAB: 0 or -errno.
  func grab(_ on: Bool) -> Int32
  /// An LED's state in the source's view: read at open (EVIOCGLED), then kept by the
  /// events read (a grabbing reader reads every LED write back).
  func ledIsOn(_ code: Int) -> Bool
  /// Writes `events` to the device (an LED, a tone); 0 or -errno.
  func write(_ events: [input_event]) -> Int32
  /// Frees what it holds and closes `fd`.
  func close()
}

extension EvdevSource {
  /// write(2) of the records to `fd`: the kernel takes whole records only.
  func writeRecords(_ events: [input_event]) -> Int32 {
    let written = events.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    if written < 0 { return -errno }
    return written == events.count * MemoryLayout<input_event>.size ? 0 : -EIO
  }
}

/// A real evdev node through libevdev.
final class LibevdevSource: EvdevSource {
  let fd: Int32
  /// libevdev reads the node but does not own it: this does.
  private var node: OwnedDescriptor
  private var device: OpaquePointer?

  init(_ node: consuming OwnedDescriptor, device: OpaquePointer) {
    self.fd = node.fd.rawValue
    self.node = node
    self.device = device
  }

  var name: String { String(cString: libevdev_get_name(device)) }
  var phys: String { libevdev_get_phys(device).map { String(cString: $0) } ?? "" }
  var ids: (vendor: UInt16, product: UInt16, bustype: UInt16) {
    (
      UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
      UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
      UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device))
    )
  }

  func has(type: Int32, code: Int) -> Bool {
    libevdev_has_event_code(device, UInt32(type), UInt32(code)) != 0
  }

  func isDown(_ code: Int) -> Bool {
    libevdev_get_event_value(device, UInt32(EV_KEY), UInt32(code)) != 0
  }

  func absoluteRange(_ code: Int) -> AxisRange? {
    guard let info = libevdev_get_abs_info(device, UInt32(code)) else { return nil }
    return AxisRange(minimum: info.pointee.minimum, maximum: info.pointee.maximum)
  }

  func next(sync: Bool, _ event: inout input_event) -> Int32 {
    let flags = sync ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
    return libevdev_next_event(device, flags, &event)
  }

  func grab(_ on: Bool) -> Int32 { libevdev_grab(device, on ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB) }

  func ledIsOn(_ code: Int) -> Bool {
    libevdev_get_event_value(device, UInt32(EV_LED), UInt32(code)) != 0
  }

  func write(_ events: [input_event]) -> Int32 { writeRecords(events) }

  func close() {
    guard let device else { return }
    libevdev_free(device)
    self.device = nil
    node.close()
  }

  deinit { if let device { libevdev_free(device) } }
}
