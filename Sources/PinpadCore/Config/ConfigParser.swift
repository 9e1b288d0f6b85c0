/// Reads `pinpadd.conf` and its drop-ins (pinpadd.conf(5)) into a `Configuration`.
///
/// The syntax is systemd's INI dialect:
/// - `[Section]` headers; `[Keypad NAME]` for each keypad. A section may appear again
///   and continues where it left off, except that one file may not define the same
///   keypad twice (two keypads given one name by mistake); a later drop-in may
///   continue or override a keypad of an earlier file.
/// - `Key=Value` with whitespace around key and value trimmed; the last assignment of a
///   key wins, across files in the order given. Within one file a key may be set only
///   once per section (a second `Length=` is a mistake, not an override): an error
///   naming both lines.
/// - Lines starting with `#` or `;` are comments. A `#` after whitespace also starts a
///   comment to the end of the line, so an annotated listing (`MinLength=4 # ...`) parses
///   as written (`Prompt=Door#2` keeps its `#`; a `#` after a space cannot be part of a
///   value).
/// - An empty value restores the built-in default of a single value (`Length=` means
///   variable length, `Prompt=` "Enter PIN") and empties a list (`RevealKeys=` turns
///   revealing off, `Match=` matches nothing by itself). `AllowedDigits=` is the one
///   exception: empty, it reads as "no digits", so it is an error.
/// - Names of sections and keys are case-sensitive; booleans are not.
public enum ConfigParser {
  /// Parses the main file then its drop-ins (already read and sorted by the caller),
  /// later keys win. Checks that hold between keys (MinLength <= MaxLength ...) run once
  /// all files are read and blame the line that was read last.
  ///
  /// With `accounts`, names written in `[Socket] Group=`, `AllowUsers=` and
  /// `AllowGroups=` must exist there (a default left unset may be missing: the daemon
  /// warns and falls back). The daemon passes the system's user database, so
  /// `--check-config`, a reload and a start refuse the same files.
  public static func parse(_ sources: [ConfigSource], accounts: (any AccountNames)? = nil)
    throws(ConfigError) -> Configuration
  {
    var reader = ConfigReader()
    for (index, source) in sources.enumerated() {
      try reader.read(source, index: index)
    }
    try reader.validate()
    if let accounts { try reader.validateNames(accounts) }
    return reader.config
  }

  /// The keys of each section, in the order `render()` writes them.
  static let entryKeys = [
    "Length", "MinLength", "MaxLength", "SubmitKeys", "BackspaceKeys", "ClearKeys",
    "RevealKeys", "AllowedDigits", "InterKeyTimeoutSec", "TotalTimeoutSec",
    "BurstIntervalSec", "Bursts", "Mask", "RevealSec",
  ]
  static let lockoutKeys = ["MaxFailures", "LockoutSec", "LockoutMaxSec"]
  /// The longest PinAfterCardSec=: a card held longer is a card forgotten at the door.
  public static let pinAfterCardMax: Duration = .seconds(300)
  static let keypadKeys = [
    "Match", "Grab", "CardReader", "CardMode", "PinAfterCardSec", "Feedback",
  ]
  static let displayKeys = [
    "Output", "Device", "Font", "Prompt", "OnScreenKeypad", "KeypadLayout", "SnapshotSize",
    "Connector", "Mode", "Rotate",
  ]
  static let socketKeys = [
    "Path", "Group", "AllowUsers", "AllowGroups", "DeliveryTimeoutSec", "VerdictTimeoutSec",
  ]
}

/// Where a key was set: comparable in reading order.
private struct Location: Comparable {
  var source: Int
  var path: String
  var line: Int

  static func < (a: Location, b: Location) -> Bool {
    (a.source, a.line) < (b.source, b.line)
  }
  func error(_ message: String) -> ConfigError {
    ConfigError(path: path, line: line, message: message)
  }
}

private enum Section: Equatable {
  case entry, lockout, display, socket, mqtt
  case keypad(String)
  case door(String)

  var keys: [String] {
    switch self {
    case .entry: ConfigParser.entryKeys
    case .lockout: ConfigParser.lockoutKeys
    case .display: ConfigParser.displayKeys
    case .socket: ConfigParser.socketKeys
    case .keypad: ConfigParser.keypadKeys
    case .mqtt: MQTTConfig.keys
    case .door: DoorConfig.keys
    }
  }
  var title: String {
    switch self {
    case .entry: "[Entry]"
    case .lockout: "[Lockout]"
    case .display: "[Display]"
    case .socket: "[Socket]"
    case .keypad(let name): "[Keypad \(name)]"
    case .mqtt: "[MQTT]"
    case .door(let name): "[Door \(name)]"
    }
  }
}

private struct ConfigReader {
  var config = Configuration()
  let defaults = Configuration()
  /// The last assignment of each "Section.Key" (keypad keys are not tracked).
  var assigned: [String: Location] = [:]
  /// The latest header of each keypad name.
  var keypadHeaders: [String: Location] = [:]
  /// The last assignment of each keypad's "NAME.Key", for checks between its keys.
  var keypadAssigned: [String: Location] = [:]
  /// The doors as read, in the order of their first headers; built into `config.doors`
  /// by `validate()`.
  var doors: [DoorConfig.Builder] = []
  /// The latest header of each door, and the last assignment of each "NAME.Key".
  var doorHeaders: [String: Location] = [:]
  var doorAssigned: [String: Location] = [:]

  mutating func read(_ source: ConfigSource, index: Int) throws(ConfigError) {
    var section: Section? = nil
    var number = 0
    /// The line of each "Section.Key" set in this file.
    var setHere: [String: Int] = [:]
    for rawLine in source.text.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    {
      number += 1
      let here = Location(source: index, path: source.path, line: number)
      var line = Substring(trimmed(rawLine))
      if number == 1, line.first == "\u{FEFF}" { line = Substring(trimmed(line.dropFirst())) }
      if line.isEmpty || line.first == "#" || line.first == ";" { continue }
      if line.first == "[" {
        section = try header(line, at: here)
        continue
      }
      guard let equals = line.firstIndex(of: "=") else {
        throw here.error("expected Key=Value, a [Section] header or a comment")
      }
      let key = trimmed(line[..<equals])
      let value = trimmed(withoutComment(line[line.index(after: equals)...]))
      guard !key.isEmpty else { throw here.error("the key name before '=' is missing") }
      guard let section else {
        throw here.error("\(key)= comes before any [Section] header")
      }
      if let first = setHere["\(section.title).\(key)"] {
        throw here.error("\(key)= is already set in \(section.title) at line \(first)")
      }
      setHere["\(section.title).\(key)"] = number
      if section == .mqtt {
        // Kept as written; checked by MQTTConfig.validated (the daemon ignores it).
        guard MQTTConfig.keys.contains(key) else {
          throw here.error(unknownKey(key, in: section))
        }
        config.mqtt.values[key] = value
        config.mqtt.places[key] = ConfigPlace(path: source.path, line: number)
        continue
      }
      do {
        try assign(key, value, in: section)
      } catch {
        throw here.error(error.message)
      }
      if case .keypad(let name) = section {
        keypadAssigned["\(name).\(key)"] = here
      } else if case .door(let name) = section {
        doorAssigned["\(name).\(key)"] = here
      } else {
        assigned["\(section.title).\(key)"] = here
      }
    }
  }

  /// `[Entry]`, `[Keypad NAME]` ... with an optional comment after the `]`.
  mutating func header(_ line: Substring, at here: Location) throws(ConfigError) -> Section {
    guard let close = line.firstIndex(of: "]") else {
      throw here.error("section header \(line) is missing its closing ']'")
    }
    let after = trimmed(line[line.index(after: close)...])
    guard after.isEmpty || after.hasPrefix("#") || after.hasPrefix(";") else {
      throw here.error("unexpected text after the section header: \(after)")
    }
    let inside = trimmed(line[line.index(after: line.startIndex)..<close])
    guard !inside.isEmpty else { throw here.error("empty section header []") }
    let word = String(inside.prefix(while: { !$0.isWhitespace }))
    let name = trimmed(inside.dropFirst(word.count))
    let section: Section
    switch word {
    case "Entry": section = .entry
    case "Lockout": section = .lockout
    case "Display": section = .display
    case "Socket": section = .socket
    case "MQTT":
      config.mqtt.section = ConfigPlace(path: here.path, line: here.line)
      section = .mqtt
    case "Keypad":
      guard !name.isEmpty else {
        throw here.error("[Keypad] needs a name, e.g. [Keypad front-door]")
      }
      if let problem = MQTTTopic.problemAsKeypadName(String(name)) {
        throw here.error(
          "the keypad name in [Keypad \(UntrustedText.escapingControls(String(name)))] \(problem)")
      }
      if let earlier = keypadHeaders[name], earlier.source == here.source {
        throw here.error("[Keypad \(name)] is already defined at line \(earlier.line)")
      }
      if keypadHeaders[name] == nil {
        for other in config.keypads {
          guard let shared = MQTTTopic.topicCollision(String(name), other.name),
            let earlier = keypadHeaders[other.name]
          else { continue }
          throw here.error(
            "[Keypad \(name)] and [Keypad \(other.name)] (\(earlier.path):\(earlier.line)) "
              + "would share \(shared): rename one")
        }
      }
      if keypadHeaders[name] == nil { config.keypads.append(KeypadConfig(name: name)) }
      keypadHeaders[name] = here
      return .keypad(name)
    case "Door":
      return try doorHeader(name, at: here)
    default:
      let known = ["Entry", "Lockout", "Keypad", "Display", "Socket", "MQTT", "Door"]
      if let match = known.first(where: { $0.lowercased() == word.lowercased() }) {
        throw here.error("unknown section [\(inside)] (did you mean [\(match)]?)")
      }
      throw here.error(
        "unknown section [\(inside)] (expected Entry, Lockout, Keypad NAME, Display, Socket, MQTT or Door NAME)"
      )
    }
    guard name.isEmpty else { throw here.error("[\(word)] takes no name, found [\(inside)]") }
    return section
  }

  mutating func assign(_ key: String, _ value: String, in section: Section) throws(ConfigProblem) {
    let empty = value.isEmpty
    switch (section, key) {
    case (.entry, "Length"):
      config.entry.length = empty ? nil : try ConfigValue.integer(key, value, 1...32)
    case (.entry, "MinLength"):
      config.entry.minLength =
        empty ? defaults.entry.minLength : try ConfigValue.integer(key, value, 1...32)
    case (.entry, "MaxLength"):
      config.entry.maxLength =
        empty ? defaults.entry.maxLength : try ConfigValue.integer(key, value, 1...32)
    case (.entry, "SubmitKeys"):
      config.entry.submitKeys = try ConfigValue.keyList(key, value)
    case (.entry, "BackspaceKeys"):
      config.entry.backspaceKeys = try ConfigValue.keyList(key, value)
    case (.entry, "ClearKeys"):
      config.entry.clearKeys = try ConfigValue.keyList(key, value)
    case (.entry, "RevealKeys"):
      config.entry.revealKeys = try ConfigValue.keyList(key, value)
    case (.entry, "AllowedDigits"):
      // Not "empty restores the default": AllowedDigits= reads as "no digits".
      guard !empty else {
        throw ConfigProblem(
          "AllowedDigits= is empty: no code could be typed (leave the key out for 0123456789)")
      }
      config.entry.allowedDigits = try ConfigValue.digits(key, value)
    case (.entry, "InterKeyTimeoutSec"):
      config.entry.interKeyTimeout =
        empty
        ? defaults.entry.interKeyTimeout
        : try ConfigValue.duration(key, value, allowZero: false)
    case (.entry, "TotalTimeoutSec"):
      config.entry.totalTimeout =
        empty
        ? defaults.entry.totalTimeout : try ConfigValue.duration(key, value, allowZero: false)
    case (.entry, "BurstIntervalSec"):
      // 0 turns burst detection off.
      config.entry.burstInterval =
        empty
        ? defaults.entry.burstInterval : try ConfigValue.duration(key, value, allowZero: true)
    case (.entry, "Bursts"):
      config.entry.bursts =
        empty ? defaults.entry.bursts : try ConfigValue.choice(key, value, as: BurstPolicy.self)
    case (.entry, "Mask"):
      config.entry.mask =
        empty ? defaults.entry.mask : try ConfigValue.choice(key, value, as: MaskStyle.self)
    case (.entry, "RevealSec"):
      config.entry.reveal =
        empty ? defaults.entry.reveal : try ConfigValue.duration(key, value, allowZero: false)

    case (.lockout, "MaxFailures"):
      config.lockout.maxFailures =
        empty ? defaults.lockout.maxFailures : try ConfigValue.integer(key, value, 1...Int.max)
    case (.lockout, "LockoutSec"):
      config.lockout.lockout =
        empty ? defaults.lockout.lockout : try ConfigValue.duration(key, value, allowZero: false)
    case (.lockout, "LockoutMaxSec"):
      config.lockout.lockoutMax =
        empty
        ? defaults.lockout.lockoutMax : try ConfigValue.duration(key, value, allowZero: false)

    case (.keypad(let name), "Match"):
      let index = config.keypads.firstIndex(where: { $0.name == name })!
      let tokens = ConfigValue.words(value)
      // A bad `usb:` id would otherwise silently become a name glob matching nothing.
      if let bad = tokens.first(where: { !MatchToken.isValid($0) }) {
        throw ConfigProblem("Match= token \(bad) is not usb:VVVV:PPPP (four hex digits each)")
      }
      config.keypads[index].match = tokens
    case (.keypad(let name), "Grab"):
      let index = config.keypads.firstIndex(where: { $0.name == name })!
      config.keypads[index].grab = empty ? true : try ConfigValue.boolean(key, value)
    case (.keypad(let name), "CardReader"):
      let index = config.keypads.firstIndex(where: { $0.name == name })!
      let tokens = ConfigValue.words(value)
      if let bad = tokens.first(where: { !MatchToken.isValid($0) }) {
        throw ConfigProblem(
          "CardReader= token \(bad) is not usb:VVVV:PPPP (four hex digits each)")
      }
      config.keypads[index].cardReader = tokens
    case (.keypad(let name), "CardMode"):
      let index = config.keypads.firstIndex(where: { $0.name == name })!
      config.keypads[index].cardMode =
        empty ? .off : try ConfigValue.choice(key, value, as: CardMode.self)
    case (.keypad(let name), "Feedback"):
      let index = config.keypads.firstIndex(where: { $0.name == name })!
      config.keypads[index].feedback =
        empty ? .auto : try ConfigValue.choice(key, value, as: FeedbackMode.self)
    case (.keypad(let name), "PinAfterCardSec"):
      let index = config.keypads.firstIndex(where: { $0.name == name })!
      let defaults = KeypadConfig(name: name)
      let duration =
        empty ? defaults.pinAfterCard : try ConfigValue.duration(key, value, allowZero: false)
      guard duration <= ConfigParser.pinAfterCardMax else {
        throw ConfigProblem(
          "PinAfterCardSec=\(value) is too long (at most \(ConfigValue.secondsText(ConfigParser.pinAfterCardMax)) seconds)"
        )
      }
      config.keypads[index].pinAfterCard = duration

    case (.display, "Output"):
      config.display.output =
        empty
        ? defaults.display.output : try ConfigValue.choice(key, value, as: DisplayOutput.self)
    case (.display, "Device"):
      config.display.device = value
    case (.display, "Font"):
      config.display.font = value
    case (.display, "Prompt"):
      config.display.prompt = empty ? defaults.display.prompt : value
    case (.display, "OnScreenKeypad"):
      config.display.onScreenKeypad =
        empty ? defaults.display.onScreenKeypad : try ConfigValue.boolean(key, value)
    case (.display, "KeypadLayout"):
      config.display.keypadLayout =
        empty
        ? defaults.display.keypadLayout
        : try ConfigValue.choice(key, value, as: KeypadLayout.self)
    case (.display, "SnapshotSize"):
      let (width, height) =
        empty
        ? (defaults.display.snapshotWidth, defaults.display.snapshotHeight)
        : try ConfigValue.size(key, value)
      config.display.snapshotWidth = width
      config.display.snapshotHeight = height
    case (.display, "Connector"):
      guard value.utf8.count <= 32, value.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
        throw ConfigProblem("Connector=\(value) is not a connector name such as HDMI-A-1")
      }
      config.display.connector = value
    case (.display, "Mode"):
      config.display.mode = empty ? nil : try ConfigValue.size(key, value)
    case (.display, "Rotate"):
      guard !empty else {
        config.display.rotate = nil
        break
      }
      guard let degrees = Int(value), let rotation = ScreenRotation(rawValue: degrees),
        value.allSatisfy({ $0.isASCII && $0.isNumber })
      else {
        throw ConfigProblem("Rotate=\(value) is not one of 0, 90, 180 or 270")
      }
      config.display.rotate = rotation

    case (.socket, "Path"):
      guard empty || value.hasPrefix("/") else {
        throw ConfigProblem("Path=\(value) must be an absolute path")
      }
      config.socket.path = empty ? defaults.socket.path : value
    case (.socket, "Group"):
      config.socket.group = empty ? defaults.socket.group : value
      markExplicit(key, !empty)
    case (.socket, "AllowUsers"):
      config.socket.allowUsers = ConfigValue.words(value)
      markExplicit(key, true)
    case (.socket, "AllowGroups"):
      config.socket.allowGroups = ConfigValue.words(value)
      markExplicit(key, true)
    case (.socket, "DeliveryTimeoutSec"):
      config.socket.deliveryTimeout =
        empty
        ? defaults.socket.deliveryTimeout : try ConfigValue.duration(key, value, allowZero: false)
    case (.socket, "VerdictTimeoutSec"):
      config.socket.verdictTimeout =
        empty
        ? defaults.socket.verdictTimeout : try ConfigValue.duration(key, value, allowZero: false)

    case (.door(let name), _):
      let index = doors.firstIndex(where: { $0.name == name })!
      try doors[index].assign(key, value)

    default:
      throw ConfigProblem(unknownKey(key, in: section))
    }
  }

  func unknownKey(_ key: String, in section: Section) -> String {
    if let match = section.keys.first(where: { $0.lowercased() == key.lowercased() }) {
      return "unknown key \(key) in \(section.title) (did you mean \(match)?)"
    }
    return "unknown key \(key) in \(section.title)"
  }

  /// Group=, AllowUsers=, AllowGroups= written in a file: names there must exist.
  /// `Group=` (empty) is the default group again, so it is no longer explicit.
  mutating func markExplicit(_ key: String, _ explicit: Bool) {
    if explicit {
      config.socket.explicitKeys.insert(key)
    } else {
      config.socket.explicitKeys.remove(key)
    }
  }

  /// Checks between keys, blaming whichever of them was set last; builds the doors.
  mutating func validate() throws(ConfigError) {
    let entry = config.entry
    if entry.minLength > entry.maxLength {
      throw blame(
        "[Entry].MinLength", "[Entry].MaxLength",
        "MinLength=\(entry.minLength) is larger than MaxLength=\(entry.maxLength)")
    }
    if entry.length == nil, entry.submitKeys.isEmpty {
      throw blame(
        "[Entry].SubmitKeys", "[Entry].Length",
        "SubmitKeys= is empty and Length= is not set: no code could ever be submitted")
    }
    let lists: [(String, [KeyCode])] = [
      ("SubmitKeys", entry.submitKeys), ("BackspaceKeys", entry.backspaceKeys),
      ("ClearKeys", entry.clearKeys), ("RevealKeys", entry.revealKeys),
    ]
    for (i, first) in lists.enumerated() {
      for second in lists[(i + 1)...] {
        if let shared = first.1.first(where: second.1.contains) {
          throw blame(
            "[Entry].\(first.0)", "[Entry].\(second.0)",
            "\(shared.name) is in both \(first.0) and \(second.0)")
        }
      }
    }
    if config.lockout.lockout > config.lockout.lockoutMax {
      throw blame(
        "[Lockout].LockoutSec", "[Lockout].LockoutMaxSec",
        "LockoutSec=\(ConfigValue.secondsText(config.lockout.lockout)) is longer than "
          + "LockoutMaxSec=\(ConfigValue.secondsText(config.lockout.lockoutMax))")
    }
    for keypad in config.keypads {
      // Both are mistakes: a reader nobody listens to, or a mode with no reader.
      let cardMode = keypadAssigned["\(keypad.name).CardMode"]
      let cardReader = keypadAssigned["\(keypad.name).CardReader"]
      let place = [cardMode, cardReader].compactMap { $0 }.max()
      if keypad.cardMode != .off, keypad.cardReader.isEmpty, let place {
        throw place.error(
          "[Keypad \(keypad.name)] CardMode=\(keypad.cardMode.rawValue) needs CardReader= (the reader's Match= tokens)"
        )
      }
      if keypad.cardMode == .off, !keypad.cardReader.isEmpty, let place {
        throw place.error(
          "[Keypad \(keypad.name)] has CardReader= but CardMode=off: set CardMode=card, card+pin or card-or-pin, or remove CardReader="
        )
      }
    }
    try validateDoors()
    if config.socket.allowUsers.isEmpty, config.socket.allowGroups.isEmpty {
      throw blame(
        "[Socket].AllowUsers", "[Socket].AllowGroups",
        "AllowUsers= and AllowGroups= are both empty: no controller could connect")
    }
  }

  /// Explicit `[Socket]` names that `accounts` does not know, blamed on their line.
  func validateNames(_ accounts: any AccountNames) throws(ConfigError) {
    let socket = config.socket
    func fail(_ key: String, _ message: String) -> ConfigError {
      let location = assigned["[Socket].\(key)"] ?? Location(source: 0, path: "(defaults)", line: 0)
      return location.error(message)
    }
    if socket.explicitKeys.contains("Group"), !accounts.groupExists(socket.group) {
      throw fail("Group", "Group=\(socket.group): no such group")
    }
    if socket.explicitKeys.contains("AllowUsers") {
      for name in socket.allowUsers where !accounts.userExists(name) {
        throw fail("AllowUsers", "AllowUsers: no such user \(name)")
      }
    }
    if socket.explicitKeys.contains("AllowGroups") {
      for name in socket.allowGroups where !accounts.groupExists(name) {
        throw fail("AllowGroups", "AllowGroups: no such group \(name)")
      }
    }
  }

  /// The error at the later assignment of two keys (at least one was assigned, since
  /// the defaults pass every check).
  func blame(_ first: String, _ second: String, _ message: String) -> ConfigError {
    let locations = [assigned[first], assigned[second]].compactMap { $0 }
    let location = locations.max() ?? Location(source: 0, path: "(defaults)", line: 0)
    return location.error(message)
  }
}

private func trimmed<S: StringProtocol>(_ text: S) -> String {
  guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return "" }
  let last = text.lastIndex(where: { !$0.isWhitespace })!
  return String(text[first...last])
}

/// The value up to a `#` that follows whitespace (or opens the value).
private func withoutComment(_ value: Substring) -> Substring {
  var previousIsSpace = false
  for index in value.indices {
    let character = value[index]
    if character == "#", previousIsSpace { return value[..<index] }
    previousIsSpace = character.isWhitespace
  }
  return value
}

/// Which user and group names exist (the system's NSS database in the daemon).
public protocol AccountNames {
  func userExists(_ name: String) -> Bool
  func groupExists(_ name: String) -> Bool
}

/// `[Door NAME]` headers and the checks between a door's keys (pinpadd.conf(5), [Door NAME]).
extension ConfigReader {
  fileprivate mutating func doorHeader(_ name: String, at here: Location) throws(ConfigError)
    -> Section
  {
    guard !name.isEmpty else { throw here.error("[Door] needs a name, e.g. [Door front]") }
    guard DoorConfig.isValidName(name) else {
      throw here.error(
        "the door name in [Door \(name)] may hold only letters, digits, '-', '_' and '.' (at most 64)"
      )
    }
    if let earlier = doorHeaders[name], earlier.source == here.source {
      throw here.error("[Door \(name)] is already defined at line \(earlier.line)")
    }
    if doorHeaders[name] == nil { doors.append(DoorConfig.Builder(name: name)) }
    doorHeaders[name] = here
    return .door(name)
  }

  /// Every door has a relay, names only keypads that exist, and no GPIO line serves two
  /// purposes (in one door or across doors): then `config.doors` holds them.
  fileprivate mutating func validateDoors() throws(ConfigError) {
    let keypadNames = config.keypads.isEmpty ? ["default"] : config.keypads.map(\.name)
    var used: [GPIOLineSpec: String] = [:]
    var built: [DoorConfig] = []
    for builder in doors {
      let header = doorHeaders[builder.name]!
      func at(_ key: String) -> Location { doorAssigned["\(builder.name).\(key)"] ?? header }
      guard let door = builder.build() else {
        throw at("Relay").error(
          "[Door \(builder.name)] needs Relay= (the lock's GPIO line, CHIP:LINE)")
      }
      if let unknown = door.keypads.first(where: { !keypadNames.contains($0) }) {
        let known = keypadNames.joined(separator: ", ")
        throw at("Keypads").error(
          "[Door \(door.name)] Keypads=: no keypad named \(unknown) (keypads: \(known))")
      }
      for (key, spec) in door.lines {
        let here = "[Door \(door.name)] \(key)="
        if let earlier = used[spec] {
          throw at(key).error("\(here)\(spec) is the same line as \(earlier)")
        }
        used[spec] = here
      }
      built.append(door)
    }
    config.doors = built
  }
}
