/// MQTT topic names and filters as the bridge and the fleet controller use them.
public enum MQTTTopic {
  /// Why `topic` cannot start the bridge's topics, or nil when it can: not empty, no
  /// wildcard, no empty level, no leading `$` (broker-internal), at most 512 bytes.
  public static func problemAsPrefix(_ topic: String) -> String? {
    if topic.isEmpty { return "the topic is empty" }
    if topic.contains(where: { $0 == "+" || $0 == "#" }) {
      return "a topic must not contain the wildcards + or #"
    }
    if topic.hasPrefix("$") { return "topics starting with $ belong to the broker" }
    if topic.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
      return "a topic must not have an empty level (a leading, trailing or double /)"
    }
    if topic.contains(where: { ($0.asciiValue ?? 32) < 32 || $0 == "\u{7F}" }) {
      return "a topic must not contain control characters"
    }
    if topic.utf8.count > 512 { return "the topic is longer than 512 bytes" }
    return nil
  }

  /// Why `name` cannot name a keypad, or nil (pinpadd.conf(5), [Keypad NAME];
  /// docs/protocol.md, "MQTT: topics"): every keypad is one level of its MQTT topics, so
  /// `/`, `+` and `#` (a level break and the wildcards) are refused, with control and
  /// Unicode format characters (bidi overrides, zero-width) and U+FFFD, which is what a
  /// byte that is not UTF-8 reads as. Spaces are allowed (they become `_` in topics), so
  /// two names can still meet in one topic: see `topicCollision`.
  public static func problemAsKeypadName(_ name: String) -> String? {
    for scalar in name.unicodeScalars {
      switch scalar {
      case "/", "+", "#":
        return "contains \(scalar), which cannot stand in an MQTT topic level"
      case "\u{FFFD}":
        return "is not valid UTF-8"
      default: break
      }
      if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        return "contains a control character"
      }
      switch scalar.properties.generalCategory {
      case .format, .lineSeparator, .paragraphSeparator, .surrogate:
        return "contains an invisible or format character (U+\(hex(scalar.value)))"
      default: break
      }
    }
    return nil
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// What two keypad names would share, or nil: the same topic level (`a b` and `a_b`
  /// are both `TOPIC/a_b/...`) or the same Home Assistant id (`café` and `cafè`).
  public static func topicCollision(_ a: String, _ b: String) -> String? {
    if level(forKeypad: a) == level(forKeypad: b) {
      return "the topic level \(level(forKeypad: a))"
    }
    if identifier(level(forKeypad: a)) == identifier(level(forKeypad: b)) {
      return "the Home Assistant id \(identifier(level(forKeypad: a)))"
    }
    return nil
  }

  /// A keypad name as one topic level: `/`, `+`, `#`, control characters and spaces
  /// become `_`; an empty name is `_`. Scalar by scalar, not by Character: a topic is
  /// bytes to a broker, and a `/` followed by a combining mark is one Character that is
  /// not "/" but still puts a `/` byte, a new level, into the topic.
  public static func level(forKeypad name: String) -> String {
    var mapped = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
      let separates = scalar == "/" || scalar == "+" || scalar == "#"
      let blank = scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.isWhitespace
      mapped.append(separates || blank ? "_" : scalar)
    }
    return mapped.isEmpty ? "_" : String(mapped)
  }

  /// A name for Home Assistant ids (`unique_id`, `node_id`, `object_id`): ASCII letters,
  /// digits, `_` and `-`; everything else becomes `_`.
  public static func identifier(_ text: String) -> String {
    String(
      text.map { c -> Character in
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") ? c : "_"
      })
  }

  /// Why `filter` cannot be `serve --mqtt --topics FILTER` (an MQTT filter ending in
  /// `/+/code`), or nil.
  public static func problemAsCodeFilter(_ filter: String) -> String? {
    guard filter.hasSuffix("/+/code"), filter.utf8.count > 7 else {
      return "--topics \(filter): the filter must end in /+/code, e.g. pinpadd/+/+/code"
    }
    let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
    for (i, level) in levels.enumerated() {
      if level.isEmpty { return "--topics \(filter): an empty level" }
      if level.contains("#") { return "--topics \(filter): # cannot stand before /+/code" }
      if level.contains("+") && level != "+" {
        return "--topics \(filter): + must be a whole level"
      }
      _ = i
    }
    return nil
  }

  /// `X/KEYPAD/code` -> `X/KEYPAD/verdict`; nil for any other topic.
  public static func verdictTopic(forCodeTopic topic: String) -> String? {
    guard topic.hasSuffix("/code"), topic.utf8.count > 5 else { return nil }
    return String(topic.dropLast(4)) + "verdict"
  }

  /// Whether `topic` matches the MQTT filter `filter` (`+` one level, `#` the rest).
  public static func matches(_ topic: String, filter: String) -> Bool {
    let t = topic.split(separator: "/", omittingEmptySubsequences: false)
    let f = filter.split(separator: "/", omittingEmptySubsequences: false)
    for (i, level) in f.enumerated() {
      if level == "#" { return true }
      guard i < t.count else { return false }
      if level != "+" && level != t[i] { return false }
    }
    return t.count == f.count
  }
}
