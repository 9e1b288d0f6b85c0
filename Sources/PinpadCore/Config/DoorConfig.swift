/// `[Door NAME]` sections (pinpadd.conf(5), [Door NAME]): the lock relay, the door
/// contact and the exit button of one door, each a GPIO line, and the timings of its
/// state machine.
public struct DoorConfig: Equatable, Sendable {
  public var name: String
  /// Keypad names whose granted verdicts open this door; empty: every keypad.
  public var keypads: [String] = []
  /// The lock's line; nil until `Relay=` is read (it is required).
  public var relay: GPIOLineSpec? = nil
  public var relayActiveLow = false
  public var open: Duration = .seconds(3)
  public var failMode: DoorFailMode = .secure
  public var contact: GPIOLineSpec? = nil
  public var contactActiveLow = false
  public var heldOpen: Duration = .seconds(30)
  public var exitButton: GPIOLineSpec? = nil
  public var exitButtonActiveLow = false
  public var debounce: Duration = .milliseconds(50)
  /// Feedback at the door (pinpadd.conf(5), Buzzer=, LedGranted=, LedDenied=): outputs
  /// driven with the keypads' patterns (`Feedback`).
  public var buzzer: GPIOLineSpec? = nil
  public var buzzerActiveLow = false
  public var ledGranted: GPIOLineSpec? = nil
  public var ledGrantedActiveLow = false
  public var ledDenied: GPIOLineSpec? = nil
  public var ledDeniedActiveLow = false
  public init(name: String) { self.name = name }

  /// Whether a granted verdict from `keypad` opens this door.
  public func opens(for keypad: String) -> Bool { keypads.isEmpty || keypads.contains(keypad) }

  /// The keys of the section, in the order `render()` writes them.
  public static let keys = [
    "Keypads", "Relay", "RelayActiveLow", "OpenSec", "FailMode", "Contact", "ContactActiveLow",
    "HeldOpenSec", "ExitButton", "ExitButtonActiveLow", "DebounceSec", "Buzzer",
    "BuzzerActiveLow", "LedGranted", "LedGrantedActiveLow", "LedDenied", "LedDeniedActiveLow",
  ]
  /// OpenSec= bounds: a pulse too short to hear, a door left open for minutes.
  public static let openRange: ClosedRange<Duration> = .milliseconds(100) ... .seconds(300)
  public static let heldOpenRange: ClosedRange<Duration> = .seconds(1) ... .seconds(3600)
  public static let debounceMax: Duration = .seconds(1)

  /// A door name is used in JSON, log lines and MQTT topics: letters, digits, `-`, `_`, `.`.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && name.utf8.allSatisfy { byte in
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
          || byte == 45 || byte == 95 || byte == 46
      }
  }
}

/// What the lock does when its line is released (pinpadd.conf(5), [Door NAME]).
public enum DoorFailMode: String, Equatable, Sendable, CaseIterable {
  /// The released (inactive) line locks: the relay is active while unlocked.
  case secure
  /// The released (inactive) line unlocks (fire exits): the relay is active while locked.
  case safe

  /// Whether the relay line is active (logically, before `RelayActiveLow`) when `unlocked`.
  public func relayActive(unlocked: Bool) -> Bool {
    switch self {
    case .secure: unlocked
    case .safe: !unlocked
    }
  }
}

/// `CHIP:LINE`: CHIP a `/dev/gpiochipN` path (any absolute path) or a chip label, LINE
/// an offset or a line name. Split at the last `:`, so a label may contain one.
public struct GPIOLineSpec: Equatable, Hashable, Sendable, CustomStringConvertible {
  public enum Chip: Equatable, Hashable, Sendable {
    case path(String)
    case label(String)
  }
  public enum Line: Equatable, Hashable, Sendable {
    case offset(UInt32)
    case name(String)
  }
  public var chip: Chip
  public var line: Line
  public init(chip: Chip, line: Line) {
    self.chip = chip
    self.line = line
  }

  /// The highest offset accepted (the uAPI's GPIO_MAX_NAME_SIZE-free limit of gpiolib).
  public static let maxOffset: UInt32 = 65535

  public static func parse(_ text: String) -> GPIOLineSpec? {
    guard let colon = text.lastIndex(of: ":") else { return nil }
    let chipText = String(text[..<colon])
    let lineText = String(text[text.index(after: colon)...])
    let printable = { (s: String) in
      !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { $0 > 32 && $0 < 127 }
    }
    guard printable(chipText), printable(lineText) else { return nil }
    let chip: Chip = chipText.hasPrefix("/") ? .path(chipText) : .label(chipText)
    let line: Line
    if lineText.utf8.allSatisfy({ (48...57).contains($0) }) {
      guard lineText.utf8.count <= 5, let offset = UInt32(lineText), offset <= maxOffset else {
        return nil
      }
      line = .offset(offset)
    } else {
      line = .name(lineText)
    }
    return GPIOLineSpec(chip: chip, line: line)
  }

  public var chipText: String {
    switch chip {
    case .path(let p): p
    case .label(let l): l
    }
  }
  public var lineText: String {
    switch line {
    case .offset(let o): String(o)
    case .name(let n): n
    }
  }
  public var description: String { "\(chipText):\(lineText)" }
}

extension DoorConfig {
  /// Assigns one key of a `[Door]` section (the parser adds file and line).
  mutating func assign(_ key: String, _ value: String) throws(ConfigProblem) {
    let empty = value.isEmpty
    let defaults = DoorConfig(name: name)
    func line() throws(ConfigProblem) -> GPIOLineSpec? {
      if empty { return nil }
      guard let spec = GPIOLineSpec.parse(value) else {
        throw ConfigProblem(
          "\(key)=\(value) is not CHIP:LINE (e.g. /dev/gpiochip0:17 or cp2112_gpio:3 or gpiochip0:GPIO17)"
        )
      }
      return spec
    }
    func seconds(_ range: ClosedRange<Duration>) throws(ConfigProblem) -> Duration {
      let duration = try ConfigValue.duration(key, value, allowZero: range.lowerBound == .zero)
      guard range.contains(duration) else {
        throw ConfigProblem(
          "\(key)=\(value) is out of range (\(range.lowerBound.secondsText)..\(range.upperBound.secondsText))"
        )
      }
      return duration
    }
    switch key {
    case "Keypads":
      keypads = []
      for word in ConfigValue.words(value) where !keypads.contains(word) { keypads.append(word) }
    case "Relay": relay = try line()
    case "RelayActiveLow": relayActiveLow = empty ? false : try ConfigValue.boolean(key, value)
    case "OpenSec": open = empty ? defaults.open : try seconds(Self.openRange)
    case "FailMode":
      failMode = empty ? .secure : try ConfigValue.choice(key, value, as: DoorFailMode.self)
    case "Contact": contact = try line()
    case "ContactActiveLow":
      contactActiveLow = empty ? false : try ConfigValue.boolean(key, value)
    case "HeldOpenSec": heldOpen = empty ? defaults.heldOpen : try seconds(Self.heldOpenRange)
    case "ExitButton": exitButton = try line()
    case "ExitButtonActiveLow":
      exitButtonActiveLow = empty ? false : try ConfigValue.boolean(key, value)
    case "DebounceSec":
      debounce = empty ? defaults.debounce : try seconds(.zero...Self.debounceMax)
    case "Buzzer": buzzer = try line()
    case "BuzzerActiveLow": buzzerActiveLow = empty ? false : try ConfigValue.boolean(key, value)
    case "LedGranted": ledGranted = try line()
    case "LedGrantedActiveLow":
      ledGrantedActiveLow = empty ? false : try ConfigValue.boolean(key, value)
    case "LedDenied": ledDenied = try line()
    case "LedDeniedActiveLow":
      ledDeniedActiveLow = empty ? false : try ConfigValue.boolean(key, value)
    default:
      if let match = Self.keys.first(where: { $0.lowercased() == key.lowercased() }) {
        throw ConfigProblem("unknown key \(key) in [Door \(name)] (did you mean \(match)?)")
      }
      throw ConfigProblem("unknown key \(key) in [Door \(name)]")
    }
  }

  /// The lines of this door with the key that names each.
  public var lines: [(key: String, spec: GPIOLineSpec)] {
    var out: [(String, GPIOLineSpec)] = []
    if let relay { out.append(("Relay", relay)) }
    if let contact { out.append(("Contact", contact)) }
    if let exitButton { out.append(("ExitButton", exitButton)) }
    if let buzzer { out.append(("Buzzer", buzzer)) }
    if let ledGranted { out.append(("LedGranted", ledGranted)) }
    if let ledDenied { out.append(("LedDenied", ledDenied)) }
    return out
  }

  /// The section as `--check-config` prints it.
  func rendered() -> [(String, String)] {
    func boolean(_ value: Bool) -> String { value ? "yes" : "no" }
    return [
      ("Keypads", keypads.joined(separator: " ")),
      ("Relay", relay?.description ?? ""),
      ("RelayActiveLow", boolean(relayActiveLow)),
      ("OpenSec", open.secondsText),
      ("FailMode", failMode.rawValue),
      ("Contact", contact?.description ?? ""),
      ("ContactActiveLow", boolean(contactActiveLow)),
      ("HeldOpenSec", heldOpen.secondsText),
      ("ExitButton", exitButton?.description ?? ""),
      ("ExitButtonActiveLow", boolean(exitButtonActiveLow)),
      ("DebounceSec", debounce.secondsText),
      ("Buzzer", buzzer?.description ?? ""),
      ("BuzzerActiveLow", boolean(buzzerActiveLow)),
      ("LedGranted", ledGranted?.description ?? ""),
      ("LedGrantedActiveLow", boolean(ledGrantedActiveLow)),
      ("LedDenied", ledDenied?.description ?? ""),
      ("LedDeniedActiveLow", boolean(ledDeniedActiveLow)),
    ]
  }
}
