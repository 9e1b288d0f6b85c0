/// Decides which touchscreens and pointers press the on-screen keypad
/// (`[Display] OnScreenKeypad=yes`), and which keypad's entry they feed.
///
/// The decision, first rule that applies:
/// 1. A device that is a keypad (see `KeypadMatcher`) is not also a pointer, and a
///    device with neither a touch surface nor a pointer with a button is none.
/// 2. udev's `ENV{PINPADD_KEYPAD}=NAME`: it feeds keypad NAME, grabbed unless that
///    section says `Grab=no`.
/// 3. The first `[Keypad]` section with a `Match=` token that matches: that keypad,
///    with the section's `Grab=`.
/// 4. Virtual devices (uinput) stop here unless udev tagged them `pinpadd`.
/// 5. Otherwise it feeds the keypad the screen shows, and is never grabbed: a desktop
///    mouse keeps working for everyone else.
public struct PointerMatcher: Equatable, Sendable {
  public let keypads: [KeypadConfig]
  private let sections: SectionRules

  public init(keypads: [KeypadConfig]) {
    self.keypads = keypads
    self.sections = SectionRules(keypads)
  }

  /// How a device serves the on-screen keypad, or nil when it does not.
  public func pointer(for device: DeviceIdentity, capabilities: DeviceCapabilities)
    -> PointerAssignment?
  {
    guard !capabilities.hasDigitKeys, capabilities.hasTouch || capabilities.hasPointer else {
      return nil
    }
    if let named = sections.section(naming: device) {
      return PointerAssignment(keypad: named.name, grab: named.grab)
    }
    if device.isVirtual && !device.isTaggedForPinpadd { return nil }
    return PointerAssignment(keypad: nil, grab: false)
  }
}

/// A pointer device for the on-screen keypad.
public struct PointerAssignment: Equatable, Hashable, Sendable {
  /// The keypad whose entry its presses feed; nil: the one the screen shows.
  public var keypad: String?
  /// Take the device exclusively (EVIOCGRAB); only ever for an explicit match.
  public var grab: Bool

  public init(keypad: String?, grab: Bool) {
    self.keypad = keypad
    self.grab = grab
  }
}
