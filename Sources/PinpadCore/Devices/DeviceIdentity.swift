/// What pinpadd knows about one input event device before reading from it: who it is
/// (from the kernel and udev) and what it can do (from its evdev capabilities).
///
/// Built by the system layer from libudev (or, without udev, from the device node);
/// the matcher and `--list-devices` work on this plain value only.
public struct DeviceIdentity: Equatable, Hashable, Sendable {
  /// The event node, e.g. `/dev/input/event3`.
  public var devnode: String
  /// The sysfs path, e.g. `/sys/devices/pci0000:00/.../input/input5/event3`; empty when
  /// unknown (a node opened without udev).
  public var syspath: String
  /// The kernel's device name (`EVIOCGNAME`), e.g. `QEMU QEMU USB Keyboard`.
  public var name: String
  public var vendor: UInt16
  public var product: UInt16
  /// `BUS_USB` = 0x03, `BUS_I8042` = 0x11, `BUS_VIRTUAL` = 0x06, `BUS_HOST` = 0x19 ...
  public var bustype: UInt16
  /// The physical path (`EVIOCGPHYS`), e.g. `usb-0000:00:04.0-1/input0`; may be empty.
  public var phys: String
  /// udev's symlinks for the node: `/dev/input/by-id/...`, `/dev/input/by-path/...`.
  public var links: [String]
  /// udev properties of interest (`ID_INPUT_KEY`, `ID_INPUT_KEYBOARD`, `PINPADD_KEYPAD`,
  /// `ID_INPUT_TOUCHSCREEN` ...); empty without udev.
  public var properties: [String: String]
  /// udev tags (`pinpadd`, `seat`, `uaccess` ...); empty without udev.
  public var tags: Set<String>

  public init(
    devnode: String, syspath: String = "", name: String = "", vendor: UInt16 = 0,
    product: UInt16 = 0, bustype: UInt16 = 0, phys: String = "", links: [String] = [],
    properties: [String: String] = [:], tags: Set<String> = []
  ) {
    self.devnode = devnode
    self.syspath = syspath
    self.name = name
    self.vendor = vendor
    self.product = product
    self.bustype = bustype
    self.phys = phys
    self.links = links
    self.properties = properties
    self.tags = tags
  }

  /// A device the kernel made up (uinput, evemu-device ...) rather than hardware:
  /// its sysfs path is under `/sys/devices/virtual/input`. Such devices only become
  /// keypads when a `[Keypad]` section, the udev tag or `PINPADD_KEYPAD` names them.
  public var isVirtual: Bool { syspath.hasPrefix("/sys/devices/virtual/input/") }

  /// The node's short name (`event3`).
  public var sysname: String {
    devnode.split(separator: "/").last.map(String.init) ?? devnode
  }

  /// The udev rules tagged this device for pinpadd (`TAG+="pinpadd"`).
  public var isTaggedForPinpadd: Bool { tags.contains("pinpadd") }

  /// The keypad a site's udev rule assigned (`ENV{PINPADD_KEYPAD}="door"`), if any.
  public var udevKeypadName: String? {
    guard let name = properties["PINPADD_KEYPAD"], !name.isEmpty else { return nil }
    return name
  }

  /// `ID_INPUT_KEY=1`: udev saw keys on it.
  public var udevSaysKeys: Bool { properties["ID_INPUT_KEY"] == "1" }

  /// `vvvv:pppp` in lower-case hex.
  public var usbID: String { "\(hex4(vendor)):\(hex4(product))" }

  /// Whether a node that reappears is the same device as before (a re-plugged keypad
  /// may come back under another event number, another keypad may take this one):
  /// same name, ids, bus and physical path.
  public func isSameDevice(as other: DeviceIdentity) -> Bool {
    name == other.name && vendor == other.vendor && product == other.product
      && bustype == other.bustype && phys == other.phys
  }
}

/// What an event device can do, from its evdev capabilities.
public struct DeviceCapabilities: Equatable, Hashable, Sendable {
  /// Reports at least one of `KEY_0`...`KEY_9` or `KEY_KP0`...`KEY_KP9`: it can serve as a
  /// keypad.
  public var hasDigitKeys: Bool
  /// An absolute touchscreen or tablet (ABS_X/ABS_Y or ABS_MT_POSITION_X/Y, plus
  /// BTN_TOUCH or BTN_LEFT), for the on-screen keypad.
  public var hasTouch: Bool
  /// A relative pointer (REL_X/REL_Y plus BTN_LEFT), for the on-screen keypad.
  public var hasPointer: Bool

  public init(hasDigitKeys: Bool, hasTouch: Bool = false, hasPointer: Bool = false) {
    self.hasDigitKeys = hasDigitKeys
    self.hasTouch = hasTouch
    self.hasPointer = hasPointer
  }
}

/// Four lower-case hex digits.
func hex4(_ value: UInt16) -> String {
  let digits = String(value, radix: 16)
  return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
