/// Decides which keypad, if any, an input device serves (pinpadd.conf(5), [Keypad NAME]).
///
/// `Match=` tokens, by their form:
/// - `/dev/...`: a device path glob, compared with the event node and each of udev's links
///   (`/dev/input/event3`, `/dev/input/by-id/usb-Acme_Keypad-event-kbd`,
///   `/dev/input/by-path/*-usb-0:1:1.0-event-kbd`).
/// - `usb:VVVV:PPPP`: vendor and product id in hex, 1 to 4 digits each, any case. The ids
///   are compared whatever the bus (Bluetooth HID devices carry the same USB-IF ids).
/// - `phys:GLOB`: the physical path only, e.g. `phys:usb-0000:00:14.0-3/input0`.
/// - `name:GLOB`: the device name only.
/// - anything else: a glob compared with the device name and with its physical path.
/// Globs use `*`, `?`, `[...]` (see `Glob`); since Match= is split on spaces, a space in
/// a name is written `?` or `*` (`QEMU?QEMU?USB?Keyboard`).
///
/// The decision, first rule that applies:
/// 1. A device without digit keys is never a keypad.
/// 1a. The first section, in file order, whose `CardReader=` tokens match makes it that
///    keypad's card reader (pinpadd(8), CARD READERS): never a keypad itself, whatever
///    else matches.
/// 2. udev's `ENV{PINPADD_KEYPAD}=NAME` puts it on keypad NAME (with that section's
///    settings when one exists, else the defaults).
/// 3. The first section, in file order, with a token that matches.
/// 4. Virtual devices (uinput) stop here unless udev tagged them `pinpadd`.
/// 5. With no sections at all: keypad "default".
/// 6. Otherwise the first section with an empty `Match=` (a catch-all), if any.
public struct KeypadMatcher: Equatable, Sendable {
  public let keypads: [KeypadConfig]
  private let sections: SectionRules
  private let readerTokens: [[MatchToken]]

  public init(keypads: [KeypadConfig]) {
    self.keypads = keypads
    self.sections = SectionRules(keypads)
    self.readerTokens = keypads.map { $0.cardReader.map(MatchToken.init) }
  }

  /// The keypad a device serves, or nil when pinpadd should leave it alone.
  public func keypad(for device: DeviceIdentity, capabilities: DeviceCapabilities)
    -> KeypadAssignment?
  {
    guard capabilities.hasDigitKeys else { return nil }
    for (index, list) in readerTokens.enumerated()
    where list.contains(where: { $0.matches(device) }) {
      return KeypadAssignment(
        name: keypads[index].name, grab: keypads[index].grab, reason: .cardReader)
    }
    if let named = sections.section(naming: device) {
      return KeypadAssignment(
        name: named.name, grab: named.grab, reason: named.byUdev ? .udevProperty : .matched)
    }
    if device.isVirtual && !device.isTaggedForPinpadd { return nil }
    if keypads.isEmpty {
      return KeypadAssignment(name: "default", grab: true, reason: .default)
    }
    if let catchAll = keypads.first(where: { $0.match.isEmpty }) {
      return KeypadAssignment(catchAll, reason: .catchAll)
    }
    return nil
  }
}

/// The rules keypads and pointers share (2 and 3 of each matcher): udev's
/// `ENV{PINPADD_KEYPAD}=NAME` names the keypad (grabbed unless that section, if any,
/// says `Grab=no`), else the first section in file order with a `Match=` token that
/// matches. The callers then apply rule 4, virtual devices, themselves.
struct SectionRules: Equatable, Sendable {
  private let keypads: [KeypadConfig]
  private let tokens: [[MatchToken]]

  init(_ keypads: [KeypadConfig]) {
    self.keypads = keypads
    self.tokens = keypads.map { $0.match.map(MatchToken.init) }
  }

  /// The keypad that names this device, and whether udev named it; nil for none.
  func section(naming device: DeviceIdentity) -> (name: String, grab: Bool, byUdev: Bool)? {
    if let name = device.udevKeypadName {
      let section = keypads.first { $0.name == name }
      return (name, section?.grab ?? true, true)
    }
    for (index, list) in tokens.enumerated() where list.contains(where: { $0.matches(device) }) {
      return (keypads[index].name, keypads[index].grab, false)
    }
    return nil
  }
}

/// The outcome of matching: a keypad name and how to treat the device.
public struct KeypadAssignment: Equatable, Hashable, Sendable {
  public enum Reason: Equatable, Hashable, Sendable {
    /// `ENV{PINPADD_KEYPAD}` from udev.
    case udevProperty
    /// A `Match=` token.
    case matched
    /// No sections: every keypad-capable device is "default".
    case `default`
    /// A section with an empty `Match=`.
    case catchAll
    /// A `CardReader=` token: the device is that keypad's card reader.
    case cardReader
  }
  public var name: String
  /// Take the device exclusively (EVIOCGRAB).
  public var grab: Bool
  public var reason: Reason
  /// The device is the keypad's card reader: its keys make cards, never a PIN.
  public var isCardReader: Bool { reason == .cardReader }

  public init(name: String, grab: Bool, reason: Reason) {
    self.name = name
    self.grab = grab
    self.reason = reason
  }

  init(_ section: KeypadConfig, reason: Reason) {
    self.init(name: section.name, grab: section.grab, reason: reason)
  }
}

/// One `Match=` token, classified by its form (see `KeypadMatcher`).
public enum MatchToken: Equatable, Hashable, Sendable {
  case path(Glob)
  case usbID(vendor: UInt16, product: UInt16)
  case phys(Glob)
  case name(Glob)
  case nameOrPhys(Glob)

  public init(_ token: String) {
    if token.hasPrefix("/dev/") {
      self = .path(Glob(token))
    } else if token.hasPrefix("usb:"), let ids = MatchToken.parseIDs(token.dropFirst(4)) {
      self = .usbID(vendor: ids.0, product: ids.1)
    } else if token.hasPrefix("phys:") {
      self = .phys(Glob(String(token.dropFirst(5))))
    } else if token.hasPrefix("name:") {
      self = .name(Glob(String(token.dropFirst(5))))
    } else {
      self = .nameOrPhys(Glob(token))
    }
  }

  /// Whether a token is well formed; `usb:` with bad ids is the only malformed kind (it
  /// would otherwise silently become a name glob). The parser refuses malformed ones.
  public static func isValid(_ token: String) -> Bool {
    !token.hasPrefix("usb:") || parseIDs(token.dropFirst(4)) != nil
  }

  public func matches(_ device: DeviceIdentity) -> Bool {
    switch self {
    case .path(let glob):
      return glob.matches(device.devnode) || device.links.contains(where: glob.matches)
    case .usbID(let vendor, let product):
      return device.vendor == vendor && device.product == product
    case .phys(let glob):
      return !device.phys.isEmpty && glob.matches(device.phys)
    case .name(let glob):
      return glob.matches(device.name)
    case .nameOrPhys(let glob):
      return glob.matches(device.name) || (!device.phys.isEmpty && glob.matches(device.phys))
    }
  }

  private static func parseIDs(_ text: Substring) -> (UInt16, UInt16)? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, parts.allSatisfy({ (1...4).contains($0.count) }),
      let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16)
    else { return nil }
    return (vendor, product)
  }
}
