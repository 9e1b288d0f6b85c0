/// One line of `pinpadd --list-devices` (pinpadd(8), OPTIONS), fields separated by tabs:
///
///     /dev/input/event2<TAB>QEMU QEMU USB Keyboard<TAB>0627:0001<TAB>usb-0000:00:04.0-1/input0<TAB>yes<TAB>default
///
/// path, name, `vvvv:pppp`, phys (`-` when empty), whether it can serve as a keypad
/// (`yes` / `no`: has digit keys), and the `[Keypad]` section it goes to (`-` for none;
/// `NAME (card reader)` when it is that keypad's card reader).
/// Tabs and control characters inside the name or phys become spaces, so every line has
/// exactly six fields.
public struct DeviceListing: Equatable, Sendable {
  public var device: DeviceIdentity
  public var capabilities: DeviceCapabilities
  public var keypad: String?
  public var isCardReader: Bool

  public init(
    device: DeviceIdentity, capabilities: DeviceCapabilities, keypad: String?,
    isCardReader: Bool = false
  ) {
    self.device = device
    self.capabilities = capabilities
    self.keypad = keypad
    self.isCardReader = isCardReader
  }

  /// Lists a device with the keypad the matcher gives it.
  public init(device: DeviceIdentity, capabilities: DeviceCapabilities, matcher: KeypadMatcher) {
    let assignment = matcher.keypad(for: device, capabilities: capabilities)
    self.init(
      device: device, capabilities: capabilities, keypad: assignment?.name,
      isCardReader: assignment?.isCardReader ?? false)
  }

  public var line: String {
    [
      device.devnode,
      field(device.name),
      device.usbID,
      field(device.phys),
      capabilities.hasDigitKeys ? "yes" : "no",
      field(keypad.map { isCardReader ? "\($0) (card reader)" : $0 } ?? ""),
    ].joined(separator: "\t")
  }

  /// Sorts event nodes by number (`event2` before `event10`).
  public static func byNode(_ a: DeviceListing, _ b: DeviceListing) -> Bool {
    let (na, nb) = (nodeNumber(a.device.devnode), nodeNumber(b.device.devnode))
    return na != nb ? na < nb : a.device.devnode < b.device.devnode
  }

  private static func nodeNumber(_ path: String) -> Int {
    Int(String(path.reversed().prefix { $0.isNumber }.reversed())) ?? Int.max
  }

  private func field(_ text: String) -> String {
    if text.isEmpty { return "-" }
    return String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : $0 }))
  }
}
