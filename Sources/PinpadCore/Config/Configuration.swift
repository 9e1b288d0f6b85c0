/// The effective configuration (pinpadd.conf(5)), with the built-in defaults.
///
/// `ConfigParser` builds one from `pinpadd.conf` and its drop-ins; `render()` prints it
/// back in the same INI format for `pinpadd --check-config`.
public struct Configuration: Equatable, Sendable {
  public var entry = EntryConfig()
  public var lockout = LockoutConfig()
  /// `[Keypad NAME]` sections in file order. Empty: every device with digit keys is
  /// a keypad named "default".
  public var keypads: [KeypadConfig] = []
  public var display = DisplayConfig()
  public var socket = SocketConfig()
  /// `[MQTT]` as written, for `pinpadctl mqtt` (pinpadd.conf(5), [MQTT]); the daemon
  /// ignores it.
  public var mqtt = MQTTConfig()
  /// `[Door NAME]` sections in file order (pinpadd.conf(5), [Door NAME]).
  public var doors: [DoorConfig] = []
  public init() {}
}

public enum MaskStyle: String, Equatable, Sendable, CaseIterable {
  /// One dot per digit typed.
  case dots
  /// The digits themselves.
  case digits
  /// The same symbols whatever the length, so an onlooker cannot count digits.
  case fixed
}

public enum BurstPolicy: String, Equatable, Sendable, CaseIterable {
  case accept, reject
}

public struct EntryConfig: Equatable, Sendable {
  /// Fixed length 1...32: submitted as soon as this many digits are in. nil: variable.
  public var length: Int? = nil
  public var minLength = 4
  public var maxLength = 8
  public var submitKeys: [KeyCode] = [.enter, .kpEnter]
  public var backspaceKeys: [KeyCode] = [.backspace]
  public var clearKeys: [KeyCode] = [.esc, .kpAsterisk]
  public var revealKeys: [KeyCode] = [.kpDot]
  /// The digits a code may contain (`AllowedDigits=0123456789`).
  public var allowedDigits: Set<UInt8> = Set(0...9)
  public var interKeyTimeout: Duration = .seconds(5)
  public var totalTimeout: Duration = .seconds(30)
  public var burstInterval: Duration = .milliseconds(15)
  public var bursts: BurstPolicy = .accept
  public var mask: MaskStyle = .dots
  public var reveal: Duration = .seconds(3)
  public init() {}

  /// The most digits an entry can hold under these rules.
  public var capacity: Int { length ?? maxLength }
}

public struct LockoutConfig: Equatable, Sendable {
  public var maxFailures = 5
  public var lockout: Duration = .seconds(30)
  public var lockoutMax: Duration = .seconds(900)
  public init() {}
}

public struct KeypadConfig: Equatable, Sendable {
  public var name: String
  /// Match= split on spaces: name globs, `usb:VVVV:PPPP`, phys globs, by-id paths.
  public var match: [String] = []
  public var grab = true
  /// CardReader= split on spaces, the same tokens as Match=: this keypad's card readers.
  public var cardReader: [String] = []
  public var cardMode: CardMode = .off
  /// card+pin: the PIN must be submitted within this long after the card.
  public var pinAfterCard: Duration = .seconds(10)
  /// What the keypad's own devices show and sound (Feedback=).
  public var feedback: FeedbackMode = .auto
  public init(name: String) { self.name = name }
}

/// Feedback= of a `[Keypad NAME]` (pinpadd.conf(5)): the LEDs and beeper of the keypad's
/// own devices answer keys and verdicts (`auto`), or are left alone (`none`).
public enum FeedbackMode: String, Equatable, Sendable, CaseIterable {
  case auto, none
}

/// What a keypad accepts from its card reader (pinpadd.conf(5), [Keypad NAME]).
public enum CardMode: String, Equatable, Sendable, CaseIterable {
  /// No card reader: PINs only.
  case off
  /// A card alone, submitted as soon as it is read; keypad digits are refused.
  case card
  /// A card, then the PIN on the keypad: submitted together.
  case cardPin = "card+pin"
  /// Either a card alone or a PIN alone.
  case cardOrPin = "card-or-pin"
}

public enum DisplayOutput: String, Equatable, Sendable, CaseIterable {
  case auto, drm, fb, console, none
}

/// `[Display] Rotate=`: how far the picture is turned, clockwise (as `fbcon=rotate:1` is
/// 90), on every display with pixels (pinpadd.conf(5), [Display]).
public enum ScreenRotation: Int, Equatable, Hashable, Sendable, CaseIterable {
  case none = 0
  case clockwise90 = 90
  case upsideDown = 180
  case clockwise270 = 270

  /// Whether the picture's width and height are the screen's height and width.
  public var swapsSides: Bool { self == .clockwise90 || self == .clockwise270 }
}

public enum KeypadLayout: String, Equatable, Sendable, CaseIterable {
  case phone, scrambled
}

public struct DisplayConfig: Equatable, Sendable {
  public var output: DisplayOutput = .auto
  public var device: String = ""
  public var font: String = ""
  public var prompt = "Enter PIN"
  public var onScreenKeypad = false
  public var keypadLayout: KeypadLayout = .phone
  public var snapshotWidth = 800
  public var snapshotHeight = 480
  /// `Connector=`: a DRM connector's name (`HDMI-A-1`); empty: the first connected one.
  public var connector = ""
  /// `Mode=WxH`: the DRM mode; nil: the connector's preferred mode.
  public var mode: (width: Int, height: Int)? = nil
  /// `Rotate=`; nil when unset (a panel's own orientation then applies, else none).
  public var rotate: ScreenRotation? = nil
  public init() {}

  public static func == (a: DisplayConfig, b: DisplayConfig) -> Bool {
    a.output == b.output && a.device == b.device && a.font == b.font && a.prompt == b.prompt
      && a.onScreenKeypad == b.onScreenKeypad && a.keypadLayout == b.keypadLayout
      && a.snapshotWidth == b.snapshotWidth && a.snapshotHeight == b.snapshotHeight
      && a.connector == b.connector && a.mode?.width == b.mode?.width
      && a.mode?.height == b.mode?.height && a.rotate == b.rotate
  }
}

public struct SocketConfig: Equatable, Sendable {
  public var path = "/run/pinpadd/pinpadd.sock"
  public var group = "pinpadd"
  /// Which of Group=, AllowUsers=, AllowGroups= were written in a file: a name there
  /// that does not exist is a configuration error, while a default one only warns.
  public var explicitKeys: Set<String> = []
  public var allowUsers: [String] = ["root"]
  public var allowGroups: [String] = ["pinpadd"]
  public var deliveryTimeout: Duration = .seconds(5)
  public var verdictTimeout: Duration = .seconds(10)
  public init() {}
}
