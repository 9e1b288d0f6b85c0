/// `[Door NAME]` sections (pinpadd.conf(5), [Door NAME]): the lock relay, the door
/// contact and the exit button of one door, each a GPIO line, and the timings of its
/// state machine.
public struct DoorConfig: Equatable, Sendable {
  public var name: String
  /// Keypad names whose granted verdicts open this door; empty: every keypad.
  public var keypads: [String] = []
  /// The lock's line (`Relay=`, required: the parser's `Builder` makes no door without it).
  public var relay: GPIOLineSpec
  public var relayActiveLow = false
  public var open = Self.defaultOpen
  public var failMode: DoorFailMode = .secure
  public var contact: GPIOLineSpec? = nil
  public var contactActiveLow = false
  public var heldOpen = Self.defaultHeldOpen
  public var exitButton: GPIOLineSpec? = nil
  public var exitButtonActiveLow = false
  public var debounce = Self.defaultDebounce
  /// Feedback at the door (pinpadd.conf(5), Buzzer=, LedGranted=, LedDenied=): outputs
  /// driven with the keypads' patterns (`Feedback`).
  public var buzzer: GPIOLineSpec? = nil
  public var buzzerActiveLow = false
  public var ledGranted: GPIOLineSpec? = nil
  public var ledGrantedActiveLow = false
  public var ledDenied: GPIOLineSpec? = nil
  public var ledDeniedActiveLow = false
  public init(name: String, relay: GPIOLineSpec) {
    self.name = name
    self.relay = relay
  }

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
  /// OpenSec=, HeldOpenSec= and DebounceSec= when not set (or set empty).
  public static let defaultOpen: Duration = .seconds(3)
  public static let defaultHeldOpen: Duration = .seconds(30)
  public static let defaultDebounce: Duration = .milliseconds(50)

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
  /// A `[Door NAME]` section as the parser reads it: `Relay=` as read so far, and the
  /// other keys' values, each checked as it is read and set when the door is built.
  /// `build()` makes the door once `Relay=` is set: a `DoorConfig` always has its relay.
  struct Builder {
    let name: String
    /// The lock's line; nil until `Relay=` is read.
    private(set) var relay: GPIOLineSpec?
    /// The other keys, in reading order (a later one of a key replaces the earlier).
    private var settings: [(inout DoorConfig) -> Void] = []

    init(name: String) { self.name = name }

    /// Reads one key of the section (the parser adds file and line).
    mutating func assign(_ key: String, _ value: String) throws(ConfigProblem) {
      if key == "Relay" {
        relay = try DoorConfig.line(key, value)
      } else {
        settings.append(try DoorConfig.setting(key, value, door: name))
      }
    }

    /// The door; nil while `Relay=` is not set.
    func build() -> DoorConfig? {
      guard let relay else { return nil }
      var door = DoorConfig(name: name, relay: relay)
      for setting in settings { setting(&door) }
      return door
    }
  }

  /// A GPIO line key's value: nil when empty.
  private static func line(_ key: String, _ value: String) throws(ConfigProblem) -> GPIOLineSpec? {
    if value.isEmpty { return nil }
    guard let spec = GPIOLineSpec.parse(value) else {
      throw ConfigProblem(
        "\(key)=\(value) is not CHIP:LINE (e.g. /dev/gpiochip0:17 or cp2112_gpio:3 or gpiochip0:GPIO17)"
      )
    }
    return spec
  }

  /// What one key of `[Door door]` other than `Relay=` sets, its value checked now.
  private static func setting(_ key: String, _ value: String, door name: String)
    throws(ConfigProblem) -> (inout DoorConfig) -> Void
  {
    let empty = value.isEmpty
    func line() throws(ConfigProblem) -> GPIOLineSpec? { try DoorConfig.line(key, value) }
    func seconds(_ range: ClosedRange<Duration>) throws(ConfigProblem) -> Duration {
      let duration = try ConfigValue.duration(key, value, allowZero: range.lowerBound == .zero)
      guard range.contains(duration) else {
        throw ConfigProblem(
          "\(key)=\(value) is out of range (\(range.lowerBound.secondsText)..\(range.upperBound.secondsText))"
        )
      }
      return duration
    }
    func boolean() throws(ConfigProblem) -> Bool {
      empty ? false : try ConfigValue.boolean(key, value)
    }
    func set<Value>(_ field: WritableKeyPath<DoorConfig, Value>, _ newValue: Value)
      -> (inout DoorConfig) -> Void
    { { $0[keyPath: field] = newValue } }
    switch key {
    case "Keypads":
      var keypads: [String] = []
      for word in ConfigValue.words(value) where !keypads.contains(word) { keypads.append(word) }
      return set(\.keypads, keypads)
    case "RelayActiveLow": return set(\.relayActiveLow, try boolean())
    case "OpenSec": return set(\.open, empty ? defaultOpen : try seconds(openRange))
    case "FailMode":
      return set(
        \.failMode, empty ? .secure : try ConfigValue.choice(key, value, as: DoorFailMode.self))
    case "Contact": return set(\.contact, try line())
    case "ContactActiveLow": return set(\.contactActiveLow, try boolean())
    case "HeldOpenSec":
      return set(\.heldOpen, empty ? defaultHeldOpen : try seconds(heldOpenRange))
    case "ExitButton": return set(\.exitButton, try line())
    case "ExitButtonActiveLow": return set(\.exitButtonActiveLow, try boolean())
    case "DebounceSec":
      return set(\.debounce, empty ? defaultDebounce : try seconds(.zero...debounceMax))
    case "Buzzer": return set(\.buzzer, try line())
    case "BuzzerActiveLow": return set(\.buzzerActiveLow, try boolean())
    case "LedGranted": return set(\.ledGranted, try line())
    case "LedGrantedActiveLow": return set(\.ledGrantedActiveLow, try boolean())
    case "LedDenied": return set(\.ledDenied, try line())
    case "LedDeniedActiveLow": return set(\.ledDeniedActiveLow, try boolean())
    default:
      if let match = keys.first(where: { $0.lowercased() == key.lowercased() }) {
        throw ConfigProblem("unknown key \(key) in [Door \(name)] (did you mean \(match)?)")
      }
      throw ConfigProblem("unknown key \(key) in [Door \(name)]")
    }
  }

  /// The lines of this door with the key that names each.
  public var lines: [(key: String, spec: GPIOLineSpec)] {
    var out: [(String, GPIOLineSpec)] = [("Relay", relay)]
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
      ("Relay", relay.description),
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
