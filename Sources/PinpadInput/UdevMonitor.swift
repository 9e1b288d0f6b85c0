import CLibudev
import Glibc
import PinpadCore
import PinpadSystem

/// Input event devices from udev: a monitor for hot-plug and an enumeration of what is
/// already there.
///
/// Create the monitor first (it starts receiving at once), then `enumerate()`, so a device
/// added in between is seen at least once (dedupe by devnode). Poll `fd` for readability
/// and call `receive()` until it returns nil.
public final class UdevMonitor {
  private let udev: OpaquePointer
  private let monitor: OpaquePointer
  /// The monitor's netlink socket (non-blocking, close-on-exec): poll it for readability.
  public let fd: FileDescriptor

  public enum Change: Equatable, Sendable {
    /// A new, initialised `event*` node.
    case added(DeviceIdentity, DeviceCapabilities)
    /// udev processed the device again (`udevadm trigger`, a rules change): its
    /// properties, e.g. `PINPADD_KEYPAD`, may differ. Re-match it.
    case changed(DeviceIdentity, DeviceCapabilities)
    /// The node is gone; only devnode and syspath are reliable.
    case removed(DeviceIdentity)
  }

  /// Any device's event, as `receiveEvent` gives it (for subsystems other than `input`).
  public struct Event: Equatable, Sendable {
    /// `add`, `change`, `remove`...
    public var action: String
    /// The kernel's name, e.g. `card0`, `card0-HDMI-A-1`.
    public var sysname: String
    /// The node, e.g. `/dev/dri/card0`; empty for a device without one.
    public var devnode: String
  }

  /// Subscribes to udev's (not the kernel's) events for `subsystem`: `input` for
  /// `receive`, another (`drm`) for `receiveEvent`.
  public init(subsystem: String = "input") throws(SystemError) {
    guard let udev = udev_new() else {
      throw SystemError("udev_new", path: "udev", Errno(errno))
    }
    guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
      let code = errno
      udev_unref(udev)
      throw SystemError("udev_monitor_new_from_netlink", path: "udev", Errno(code))
    }
    var rc = udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil)
    if rc >= 0 { rc = udev_monitor_enable_receiving(monitor) }
    if rc < 0 {
      udev_monitor_unref(monitor)
      udev_unref(udev)
      throw SystemError("udev_monitor_enable_receiving", path: "udev", Errno(rc < -1 ? -rc : errno))
    }
    self.udev = udev
    self.monitor = monitor
    self.fd = FileDescriptor(rawValue: udev_monitor_get_fd(monitor))
  }

  deinit {
    udev_monitor_unref(monitor)
    udev_unref(udev)
  }

  /// The next change on an `event*` node, or nil when nothing more is pending.
  /// Other input nodes (`input5`, `mouse0`, `js0`) and uninitialised devices are skipped.
  public func receive() -> Change? {
    while let device = udev_monitor_receive_device(monitor) {
      defer { udev_device_unref(device) }
      guard isEventNode(device) else { continue }
      let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
      switch action {
      case "remove":
        return .removed(UdevDevices.identity(of: device))
      case "add", "change":
        guard udev_device_get_is_initialized(device) > 0 else { continue }
        let identity = UdevDevices.identity(of: device)
        let capabilities = UdevDevices.capabilities(of: device)
        return action == "add"
          ? .added(identity, capabilities) : .changed(identity, capabilities)
      default:
        continue
      }
    }
    return nil
  }

  /// The next event of the monitor's subsystem, whatever the device; nil when nothing
  /// more is pending.
  public func receiveEvent() -> Event? {
    guard let device = udev_monitor_receive_device(monitor) else { return nil }
    defer { udev_device_unref(device) }
    let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } ?? "" }
    return Event(
      action: text(udev_device_get_action(device)), sysname: text(udev_device_get_sysname(device)),
      devnode: text(udev_device_get_devnode(device)))
  }

  /// The input event devices present now that udev has initialised.
  public func enumerate() -> [(DeviceIdentity, DeviceCapabilities)] {
    UdevDevices.enumerate(udev: udev, initialisedOnly: true)
  }
}

/// Reading input devices out of libudev.
public enum UdevDevices {
  /// Every `/dev/input/event*` udev (or, without a running udevd, sysfs) knows of.
  /// `initialisedOnly: false` also lists devices udev has not processed (no properties).
  public static func enumerate(initialisedOnly: Bool) -> [(DeviceIdentity, DeviceCapabilities)] {
    guard let udev = udev_new() else { return [] }
    defer { udev_unref(udev) }
    return enumerate(udev: udev, initialisedOnly: initialisedOnly)
  }

  static func enumerate(udev: OpaquePointer, initialisedOnly: Bool)
    -> [(DeviceIdentity, DeviceCapabilities)]
  {
    guard let enumerator = udev_enumerate_new(udev) else { return [] }
    defer { udev_enumerate_unref(enumerator) }
    udev_enumerate_add_match_subsystem(enumerator, "input")
    udev_enumerate_add_match_sysname(enumerator, "event*")
    udev_enumerate_scan_devices(enumerator)
    var found: [(DeviceIdentity, DeviceCapabilities)] = []
    var entry = udev_enumerate_get_list_entry(enumerator)
    while let current = entry {
      defer { entry = udev_list_entry_get_next(current) }
      guard let syspath = udev_list_entry_get_name(current),
        let device = udev_device_new_from_syspath(udev, syspath)
      else { continue }
      defer { udev_device_unref(device) }
      guard udev_device_get_devnode(device) != nil else { continue }
      if initialisedOnly && udev_device_get_is_initialized(device) <= 0 { continue }
      found.append((identity(of: device), capabilities(of: device)))
    }
    return found
  }

  /// The identity of an `event*` udev device: node, syspath, links, properties of
  /// interest and tags from udev; name, ids and phys from the parent `inputN` device.
  static func identity(of device: OpaquePointer) -> DeviceIdentity {
    var identity = DeviceIdentity(
      devnode: string(udev_device_get_devnode(device))
        ?? string(udev_device_get_property_value(device, "DEVNAME")) ?? "",
      syspath: string(udev_device_get_syspath(device)) ?? "")
    var link = udev_device_get_devlinks_list_entry(device)
    while let current = link {
      if let name = string(udev_list_entry_get_name(current)) { identity.links.append(name) }
      link = udev_list_entry_get_next(current)
    }
    for key in propertiesOfInterest {
      if let value = string(udev_device_get_property_value(device, key)) {
        identity.properties[key] = value
      }
    }
    var tag = udev_device_get_tags_list_entry(device)
    while let current = tag {
      if let name = string(udev_list_entry_get_name(current)), !name.isEmpty {
        identity.tags.insert(name)
      }
      tag = udev_list_entry_get_next(current)
    }
    if let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil) {
      identity.name = attribute(parent, "name") ?? ""
      identity.phys = attribute(parent, "phys") ?? ""
      identity.vendor = attribute(parent, "id/vendor").flatMap { UInt16($0, radix: 16) } ?? 0
      identity.product = attribute(parent, "id/product").flatMap { UInt16($0, radix: 16) } ?? 0
      identity.bustype = attribute(parent, "id/bustype").flatMap { UInt16($0, radix: 16) } ?? 0
    }
    return identity
  }

  /// Capabilities from the parent's sysfs bitmaps: no need to open the node.
  static func capabilities(of device: OpaquePointer) -> DeviceCapabilities {
    guard let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil)
    else { return DeviceCapabilities(hasDigitKeys: false) }
    let bitmap = { (name: String) in
      attribute(parent, "capabilities/\(name)").flatMap { CapabilityBitmap(sysfs: $0) }
        ?? CapabilityBitmap(bits: [])
    }
    return DeviceCapabilities(keys: bitmap("key"), abs: bitmap("abs"), rel: bitmap("rel"))
  }

  static let propertiesOfInterest = [
    "ID_INPUT", "ID_INPUT_KEY", "ID_INPUT_KEYBOARD", "ID_INPUT_KEYPAD", "ID_INPUT_MOUSE",
    "ID_INPUT_TOUCHSCREEN", "ID_INPUT_TABLET", "ID_PATH", "ID_SERIAL", "PINPADD_KEYPAD",
    "LIBINPUT_IGNORE_DEVICE",
  ]

  private static func attribute(_ device: OpaquePointer, _ name: String) -> String? {
    string(udev_device_get_sysattr_value(device, name)).map {
      String($0.reversed().drop { $0 == "\n" || $0 == " " }.reversed())
    }
  }

  private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
  }
}

private func isEventNode(_ device: OpaquePointer) -> Bool {
  guard let name = udev_device_get_sysname(device) else { return false }
  return String(cString: name).hasPrefix("event")
}
