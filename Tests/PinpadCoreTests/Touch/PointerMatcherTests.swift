import PinpadCore
import Testing

private let tablet = DeviceIdentity(
  devnode: "/dev/input/event4",
  syspath:
    "/sys/devices/pci0000:00/0000:00:04.0/usb1/1-2/1-2:1.0/0003:0627:0001.0002/input/input4/event4",
  name: "QEMU QEMU USB Tablet", vendor: 0x0627, product: 0x0001, bustype: 3,
  phys: "usb-0000:00:04.0-2/input0")
private let virtualTouch = DeviceIdentity(
  devnode: "/dev/input/event9", syspath: "/sys/devices/virtual/input/input12/event9",
  name: "evemu touch", vendor: 0x1, product: 0x2, bustype: 6)
private let touch = DeviceCapabilities(hasDigitKeys: false, hasTouch: true)
private let mouse = DeviceCapabilities(hasDigitKeys: false, hasPointer: true)

private func section(_ name: String, _ match: String, grab: Bool = true) -> KeypadConfig {
  var config = KeypadConfig(name: name)
  config.match = match.split(separator: " ").map(String.init)
  config.grab = grab
  return config
}

@Test func unmatchedPointerFeedsTheScreensKeypadUngrabbed() {
  let matcher = PointerMatcher(keypads: [section("door", "usb:1234:5678")])
  #expect(
    matcher.pointer(for: tablet, capabilities: touch) == PointerAssignment(keypad: nil, grab: false)
  )
  #expect(
    matcher.pointer(for: tablet, capabilities: mouse) == PointerAssignment(keypad: nil, grab: false)
  )
}

@Test func matchedPointerFeedsThatKeypadWithItsGrab() {
  let matcher = PointerMatcher(keypads: [
    section("door", "QEMU*Tablet"), section("gate", "", grab: false),
  ])
  #expect(
    matcher.pointer(for: tablet, capabilities: touch)
      == PointerAssignment(keypad: "door", grab: true))
  let ungrabbed = PointerMatcher(keypads: [section("door", "usb:0627:0001", grab: false)])
  #expect(
    ungrabbed.pointer(for: tablet, capabilities: touch)
      == PointerAssignment(keypad: "door", grab: false))
}

@Test func catchAllSectionDoesNotClaimOrGrabAMouse() {
  let matcher = PointerMatcher(keypads: [section("gate", "")])
  #expect(
    matcher.pointer(for: tablet, capabilities: mouse) == PointerAssignment(keypad: nil, grab: false)
  )
}

@Test func devicesWithDigitKeysOrNoPointerAreNotPointers() {
  let matcher = PointerMatcher(keypads: [])
  let keyboardWithMouse = DeviceCapabilities(hasDigitKeys: true, hasPointer: true)
  #expect(matcher.pointer(for: tablet, capabilities: keyboardWithMouse) == nil)
  #expect(
    matcher.pointer(for: tablet, capabilities: DeviceCapabilities(hasDigitKeys: false)) == nil)
}

@Test func virtualPointerNeedsAMatchOrTheTag() {
  #expect(PointerMatcher(keypads: []).pointer(for: virtualTouch, capabilities: touch) == nil)
  var tagged = virtualTouch
  tagged.tags = ["pinpadd"]
  #expect(PointerMatcher(keypads: []).pointer(for: tagged, capabilities: touch) != nil)
  let named = PointerMatcher(keypads: [section("lab", "name:evemu?touch")])
  #expect(named.pointer(for: virtualTouch, capabilities: touch)?.keypad == "lab")
}

@Test func udevPropertyNamesTheKeypad() {
  var device = tablet
  device.properties["PINPADD_KEYPAD"] = "lobby"
  #expect(
    PointerMatcher(keypads: []).pointer(for: device, capabilities: touch)
      == PointerAssignment(keypad: "lobby", grab: true))
}

@Test func multitouchOnlyBitmapIsATouchSurface() {
  let caps = DeviceCapabilities(
    keys: CapabilityBitmap(bits: [0x14a]), abs: CapabilityBitmap(bits: [0x35, 0x36]),
    rel: CapabilityBitmap(bits: []))
  #expect(caps.hasTouch)
}
