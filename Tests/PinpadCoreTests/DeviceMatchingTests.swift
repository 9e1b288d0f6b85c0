import PinpadCore
import Testing

private let qemuKeyboard = DeviceIdentity(
  devnode: "/dev/input/event2",
  syspath:
    "/sys/devices/pci0000:00/0000:00:04.0/usb1/1-1/1-1:1.0/0003:0627:0001.0001/input/input2/event2",
  name: "QEMU QEMU USB Keyboard", vendor: 0x0627, product: 0x0001, bustype: 3,
  phys: "usb-0000:00:04.0-1/input0",
  links: [
    "/dev/input/by-id/usb-QEMU_QEMU_USB_Keyboard_68284-0000:00:04.0-1-event-kbd",
    "/dev/input/by-path/pci-0000:00:04.0-usb-0:1:1.0-event-kbd",
  ],
  properties: ["ID_INPUT_KEY": "1", "ID_INPUT_KEYBOARD": "1"])

private let uinputKeypad = DeviceIdentity(
  devnode: "/dev/input/event5", syspath: "/sys/devices/virtual/input/input7/event5",
  name: "evemu keypad", vendor: 0x1234, product: 0x5678, bustype: 6)

private let digits = DeviceCapabilities(hasDigitKeys: true)
private let noDigits = DeviceCapabilities(hasDigitKeys: false, hasPointer: true)

private func section(_ name: String, _ match: String, grab: Bool = true) -> KeypadConfig {
  var config = KeypadConfig(name: name)
  config.match = match.split(separator: " ").map(String.init)
  config.grab = grab
  return config
}

private func keypad(_ device: DeviceIdentity, _ sections: [KeypadConfig]) -> String? {
  KeypadMatcher(keypads: sections).keypad(for: device, capabilities: digits)?.name
}

@Suite struct GlobTests {
  @Test func starMatchesAnyRunIncludingSlashes() {
    #expect(Glob("usb-*/input0").matches("usb-0000:00:04.0-1/input0"))
    #expect(Glob("*").matches(""))
    #expect(!Glob("a*b").matches("a/c"))
  }

  @Test func questionMarkMatchesExactlyOneCharacter() {
    #expect(Glob("QEMU?QEMU").matches("QEMU QEMU"))
    #expect(!Glob("QEMU?QEMU").matches("QEMUQEMU"))
  }

  @Test func bracketSetsRangesAndNegation() {
    #expect(Glob("event[0-3]").matches("event2"))
    #expect(!Glob("event[0-3]").matches("event7"))
    #expect(Glob("event[!0-3]").matches("event7"))
    #expect(Glob("event[^0-3]").matches("event7"))
    #expect(Glob("[]x]").matches("]"))
  }

  @Test func unclosedBracketIsLiteral() {
    #expect(Glob("a[b").matches("a[b"))
  }

  @Test func backslashEscapesASpecialCharacter() {
    #expect(Glob("a\\*").matches("a*"))
    #expect(!Glob("a\\*").matches("ab"))
  }

  @Test func backtracksAcrossSeveralStars() {
    #expect(Glob("*Keypad*USB*").matches("Acme Keypad 12 USB Receiver"))
    #expect(!Glob("*Keypad*USB").matches("Acme Keypad 12 USB Receiver"))
  }

  @Test func literalPatternsAreRecognised() {
    #expect(Glob("plain-name").isLiteral)
    #expect(!Glob("x*").isLiteral)
  }
}

@Suite struct MatchTokenTests {
  @Test func tokensAreClassifiedByTheirForm() {
    #expect(MatchToken("/dev/input/by-id/*kbd") == .path(Glob("/dev/input/by-id/*kbd")))
    #expect(MatchToken("usb:0627:0001") == .usbID(vendor: 0x0627, product: 1))
    #expect(MatchToken("USB:ABCD:ef") == .nameOrPhys(Glob("USB:ABCD:ef")))
    #expect(MatchToken("usb:ABCD:ef") == .usbID(vendor: 0xabcd, product: 0xef))
    #expect(MatchToken("phys:usb-*") == .phys(Glob("usb-*")))
    #expect(MatchToken("name:/weird*") == .name(Glob("/weird*")))
    #expect(MatchToken("Acme*") == .nameOrPhys(Glob("Acme*")))
  }

  @Test func malformedUSBIdsAreReportedInvalid() {
    #expect(MatchToken.isValid("usb:0627:0001"))
    #expect(!MatchToken.isValid("usb:0627"))
    #expect(!MatchToken.isValid("usb:06270:0001"))
    #expect(!MatchToken.isValid("usb:zz:0001"))
    #expect(MatchToken.isValid("Keypad*"))
  }

  @Test func usbIdsCompareCaseInsensitively() {
    #expect(MatchToken("usb:0627:0001").matches(qemuKeyboard))
    #expect(!MatchToken("usb:0627:0002").matches(qemuKeyboard))
  }

  @Test func pathTokensMatchTheNodeAndUdevLinks() {
    #expect(MatchToken("/dev/input/event2").matches(qemuKeyboard))
    #expect(MatchToken("/dev/input/by-id/usb-QEMU_*-event-kbd").matches(qemuKeyboard))
    #expect(MatchToken("/dev/input/by-path/*-usb-0:1:1.0-event-kbd").matches(qemuKeyboard))
    #expect(!MatchToken("/dev/input/event3").matches(qemuKeyboard))
  }

  @Test func bareGlobsMatchNameOrPhys() {
    #expect(MatchToken("QEMU?QEMU?USB?Keyboard").matches(qemuKeyboard))
    #expect(MatchToken("usb-0000:00:04.0-1/*").matches(qemuKeyboard))
    #expect(!MatchToken("Acme*").matches(qemuKeyboard))
  }

  @Test func prefixedGlobsMatchOnlyTheirField() {
    #expect(MatchToken("phys:usb-0000:00:04.0-*").matches(qemuKeyboard))
    #expect(!MatchToken("phys:QEMU*").matches(qemuKeyboard))
    #expect(MatchToken("name:QEMU*").matches(qemuKeyboard))
    #expect(!MatchToken("name:usb-*").matches(qemuKeyboard))
  }

  @Test func emptyPhysMatchesNoPhysGlob() {
    var device = qemuKeyboard
    device.phys = ""
    #expect(!MatchToken("phys:*").matches(device))
  }
}

@Suite struct KeypadMatcherTests {
  @Test func withoutSectionsEveryDeviceWithDigitKeysIsDefault() {
    let match = KeypadMatcher(keypads: []).keypad(for: qemuKeyboard, capabilities: digits)
    #expect(match == KeypadAssignment(name: "default", grab: true, reason: .default))
  }

  @Test func aDeviceWithoutDigitKeysIsNeverAKeypad() {
    let matcher = KeypadMatcher(keypads: [section("door", "usb:0627:0001")])
    #expect(matcher.keypad(for: qemuKeyboard, capabilities: noDigits) == nil)
    #expect(KeypadMatcher(keypads: []).keypad(for: qemuKeyboard, capabilities: noDigits) == nil)
  }

  @Test func theFirstMatchingSectionInFileOrderWins() {
    let sections = [
      section("lobby", "Acme*"), section("door", "usb:0627:0001"), section("any", "*"),
    ]
    #expect(keypad(qemuKeyboard, sections) == "door")
  }

  @Test func aSectionsGrabSettingIsCarried() {
    let matcher = KeypadMatcher(keypads: [section("door", "QEMU*", grab: false)])
    #expect(
      matcher.keypad(for: qemuKeyboard, capabilities: digits)
        == KeypadAssignment(name: "door", grab: false, reason: .matched))
  }

  @Test func withSectionsAnUnmatchedDeviceIsNoKeypad() {
    #expect(keypad(qemuKeyboard, [section("door", "usb:1234:5678")]) == nil)
  }

  @Test func aSectionWithEmptyMatchCatchesTheRest() {
    let sections = [section("door", "usb:1234:5678"), section("other", "")]
    #expect(keypad(qemuKeyboard, sections) == "other")
  }

  @Test func virtualDevicesNeedAnExplicitMatch() {
    #expect(uinputKeypad.isVirtual)
    #expect(!qemuKeyboard.isVirtual)
    #expect(keypad(uinputKeypad, []) == nil)
    #expect(keypad(uinputKeypad, [section("other", "")]) == nil)
    #expect(keypad(uinputKeypad, [section("test", "evemu*")]) == "test")
  }

  @Test func aVirtualDeviceTaggedByUdevCountsAsChosen() {
    var tagged = uinputKeypad
    tagged.tags = ["pinpadd"]
    #expect(keypad(tagged, []) == "default")
  }

  @Test func udevKeypadPropertyNamesTheKeypad() {
    var device = qemuKeyboard
    device.properties["PINPADD_KEYPAD"] = "door"
    let sections = [section("lobby", "QEMU*"), section("door", "nothing", grab: false)]
    #expect(
      KeypadMatcher(keypads: sections).keypad(for: device, capabilities: digits)
        == KeypadAssignment(name: "door", grab: false, reason: .udevProperty))
  }

  @Test func udevKeypadPropertyWithoutASectionUsesDefaults() {
    var device = uinputKeypad
    device.properties["PINPADD_KEYPAD"] = "gate"
    #expect(
      KeypadMatcher(keypads: []).keypad(for: device, capabilities: digits)
        == KeypadAssignment(name: "gate", grab: true, reason: .udevProperty))
  }
}

@Suite struct DeviceIdentityTests {
  @Test func sameDeviceComparesNameIdsBusAndPhysNotTheNode() {
    var moved = qemuKeyboard
    moved.devnode = "/dev/input/event9"
    moved.syspath = "/sys/devices/elsewhere/event9"
    #expect(moved.isSameDevice(as: qemuKeyboard))
    var other = qemuKeyboard
    other.phys = "usb-0000:00:04.0-2/input0"
    #expect(!other.isSameDevice(as: qemuKeyboard))
  }

  @Test func udevPropertiesOfInterest() {
    var device = qemuKeyboard
    #expect(device.udevSaysKeys)
    #expect(device.udevKeypadName == nil)
    device.properties["PINPADD_KEYPAD"] = ""
    #expect(device.udevKeypadName == nil)
    #expect(device.sysname == "event2")
  }
}

@Suite struct DeviceListingTests {
  @Test func aLineHasSixTabSeparatedFields() {
    let line = DeviceListing(
      device: qemuKeyboard, capabilities: digits, matcher: KeypadMatcher(keypads: [])
    ).line
    #expect(
      line
        == "/dev/input/event2\tQEMU QEMU USB Keyboard\t0627:0001\tusb-0000:00:04.0-1/input0\tyes\tdefault"
    )
  }

  @Test func missingFieldsAreDashes() {
    let device = DeviceIdentity(devnode: "/dev/input/event0", name: "Power Button")
    let line = DeviceListing(device: device, capabilities: noDigits, keypad: nil).line
    #expect(line == "/dev/input/event0\tPower Button\t0000:0000\t-\tno\t-")
  }

  @Test func controlCharactersInNamesCannotBreakTheLine() {
    let device = DeviceIdentity(devnode: "/dev/input/event1", name: "Evil\tName\n")
    let fields = DeviceListing(device: device, capabilities: digits, keypad: "x").line
      .split(separator: "\t", omittingEmptySubsequences: false)
    #expect(fields.count == 6)
    #expect(fields[1] == "Evil Name ")
  }

  @Test func listingsSortByEventNumber() {
    let make = { (node: String) in
      DeviceListing(device: DeviceIdentity(devnode: node), capabilities: noDigits, keypad: nil)
    }
    let sorted = [make("/dev/input/event10"), make("/dev/input/event2")].sorted(
      by: DeviceListing.byNode)
    #expect(sorted.map(\.device.devnode) == ["/dev/input/event2", "/dev/input/event10"])
  }
}

@Suite struct CapabilityBitmapTests {
  // The QEMU USB keyboard's /sys/class/input/input1/capabilities/key.
  private let keyboard = "1000000000007 ff9f207ac14057ff febeffdfffefffff fffffffffffffffe"

  @Test func aFullKeyboardHasDigitKeys() throws {
    let keys = try #require(CapabilityBitmap(sysfs: keyboard))
    #expect(keys.contains(2))
    #expect(keys.contains(79))
    #expect(!keys.contains(0))
    let caps = DeviceCapabilities(
      keys: keys, abs: CapabilityBitmap(bits: []), rel: CapabilityBitmap(bits: []))
    #expect(caps == DeviceCapabilities(hasDigitKeys: true))
  }

  @Test func aKeypadWithOnlyKeypadDigitsCounts() {
    let keys = CapabilityBitmap(bits: [82, 96, 14])
    let caps = DeviceCapabilities(
      keys: keys, abs: CapabilityBitmap(bits: []), rel: CapabilityBitmap(bits: []))
    #expect(caps.hasDigitKeys)
  }

  @Test func aPowerButtonHasNoDigitKeys() throws {
    let keys = try #require(CapabilityBitmap(sysfs: "10000000000000 0\n"))
    #expect(keys.contains(116))
    let caps = DeviceCapabilities(
      keys: keys, abs: CapabilityBitmap(bits: []), rel: CapabilityBitmap(bits: []))
    #expect(!caps.hasDigitKeys)
  }

  @Test func aTabletAndAMouseArePointing() throws {
    let tablet = DeviceCapabilities(
      keys: CapabilityBitmap(bits: [0x110, 0x111]), abs: CapabilityBitmap(bits: [0, 1]),
      rel: CapabilityBitmap(bits: [8]))
    #expect(tablet.hasTouch && !tablet.hasPointer && !tablet.hasDigitKeys)
    let mouse = DeviceCapabilities(
      keys: CapabilityBitmap(bits: [0x110]), abs: CapabilityBitmap(bits: []),
      rel: CapabilityBitmap(bits: [0, 1, 8]))
    #expect(mouse.hasPointer && !mouse.hasTouch)
  }

  @Test func garbageIsNotABitmap() {
    #expect(CapabilityBitmap(sysfs: "xyz 12") == nil)
    #expect(CapabilityBitmap(sysfs: "") == CapabilityBitmap(bits: []))
  }
}

@Suite struct CardReaderMatchingTests {
  static func door(reader: String, match: String = "") -> KeypadConfig {
    var config = section("door", match)
    config.cardReader = reader.split(separator: " ").map(String.init)
    config.cardMode = .cardPin
    return config
  }

  @Test("a device matching CardReader= is that keypad's reader, never a keypad")
  func readerNeverAKeypad() {
    let sections = [section("other", "QEMU*"), Self.door(reader: "usb:0627:0001")]
    let assignment = KeypadMatcher(keypads: sections).keypad(
      for: qemuKeyboard, capabilities: digits)
    #expect(assignment?.name == "door")
    #expect(assignment?.isCardReader == true)
    // Not a reader by another section's Match= or a catch-all either.
    let catchAll = [section("all", ""), Self.door(reader: "phys:usb-*-1/input0")]
    #expect(
      KeypadMatcher(keypads: catchAll).keypad(for: qemuKeyboard, capabilities: digits)?
        .isCardReader == true)
  }

  @Test("a virtual device (uinput) named by CardReader= is taken, like one named by Match=")
  func virtualReader() {
    let sections = [Self.door(reader: "name:evemu?keypad", match: "nothing")]
    let assignment = KeypadMatcher(keypads: sections).keypad(
      for: uinputKeypad, capabilities: digits)
    #expect(assignment?.isCardReader == true)
    #expect(assignment?.grab == true)
  }

  @Test("the section's Grab= applies to its card reader")
  func readerGrab() {
    var door = Self.door(reader: "QEMU*")
    door.grab = false
    let assignment = KeypadMatcher(keypads: [door]).keypad(
      for: qemuKeyboard, capabilities: digits)
    #expect(assignment?.isCardReader == true)
    #expect(assignment?.grab == false)
    #expect(
      KeypadMatcher(keypads: [door]).keypad(for: qemuKeyboard, capabilities: noDigits) == nil,
      "a device without digit keys is no card reader")
  }

  @Test("the keypad itself is still matched by Match= beside its reader")
  func keypadBesideReader() {
    let sections = [Self.door(reader: "name:Reader", match: "QEMU*")]
    let assignment = KeypadMatcher(keypads: sections).keypad(
      for: qemuKeyboard, capabilities: digits)
    #expect(assignment?.name == "door")
    #expect(assignment?.isCardReader == false)
  }

  @Test("--list-devices says when a device is a keypad's card reader")
  func listing() {
    let matcher = KeypadMatcher(keypads: [Self.door(reader: "QEMU*")])
    let line = DeviceListing(device: qemuKeyboard, capabilities: digits, matcher: matcher).line
    #expect(line.split(separator: "\t").last == "door (card reader)")
    #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == 6)
  }
}
