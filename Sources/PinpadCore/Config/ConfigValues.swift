/// Parsers for the value types of pinpadd.conf(5), DESCRIPTION. Each takes the key and
/// the trimmed value so its message can name both; the caller adds the file and line.

/// A value the parser refuses: the message without file and line.
struct ConfigProblem: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

enum ConfigValue {
  /// The longest duration accepted: a year, far beyond any sensible timeout.
  static let maximumSeconds: Int64 = 365 * 24 * 3600

  /// yes/no, true/false, 1/0, on/off, in any case (as systemd's parse_boolean).
  static func boolean(_ key: String, _ value: String) throws(ConfigProblem) -> Bool {
    switch value.lowercased() {
    case "yes", "true", "1", "on": return true
    case "no", "false", "0", "off": return false
    default: throw ConfigProblem("\(key)=\(value) is not a boolean (use yes or no)")
    }
  }

  /// A decimal whole number within `range`.
  static func integer(
    _ key: String, _ value: String, _ range: ClosedRange<Int>
  ) throws(ConfigProblem) -> Int {
    guard value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }),
      let number = Int(value)
    else {
      throw ConfigProblem("\(key)=\(value) is not a whole number")
    }
    guard range.contains(number) else {
      if range.upperBound == Int.max {
        throw ConfigProblem("\(key)=\(value) must be at least \(range.lowerBound)")
      }
      throw ConfigProblem(
        "\(key)=\(value) is out of range (\(range.lowerBound)..\(range.upperBound))")
    }
    return number
  }

  /// Seconds as plain decimal digits with an optional fraction ("5", "0.015"), exact to
  /// the nanosecond. No sign, exponent, unit, NaN or infinity. Zero only when
  /// `allowZero` (a timeout of zero would wipe every entry at once).
  static func duration(
    _ key: String, _ value: String, allowZero: Bool
  ) throws(ConfigProblem) -> Duration {
    if value.hasPrefix("-") {
      throw ConfigProblem("\(key)=\(value) must not be negative")
    }
    let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let whole = parts[0]
    let fraction = parts.count == 2 ? parts[1] : ""
    let isDigits = { (text: Substring) in text.allSatisfy { $0.isASCII && $0.isNumber } }
    guard !whole.isEmpty, isDigits(whole), isDigits(fraction),
      parts.count == 1 || !fraction.isEmpty
    else {
      throw ConfigProblem("\(key)=\(value) is not a number of seconds (e.g. 5 or 0.015)")
    }
    guard fraction.count <= 9 else {
      throw ConfigProblem("\(key)=\(value) is more precise than a nanosecond")
    }
    guard whole.count <= 12, let seconds = Int64(whole), seconds <= maximumSeconds else {
      throw ConfigProblem("\(key)=\(value) is too long (at most \(maximumSeconds) seconds)")
    }
    let padded = String(fraction) + String(repeating: "0", count: 9 - fraction.count)
    let nanoseconds = seconds * 1_000_000_000 + Int64(padded)!
    guard nanoseconds > 0 || allowZero else {
      throw ConfigProblem("\(key)=\(value) must be more than 0")
    }
    return .nanoseconds(nanoseconds)
  }

  /// One of an enum's raw values, spelled exactly.
  static func choice<T: RawRepresentable & CaseIterable>(
    _ key: String, _ value: String, as: T.Type
  ) throws(ConfigProblem) -> T where T.RawValue == String {
    if let choice = T(rawValue: value) { return choice }
    let names = T.allCases.map(\.rawValue)
    let listed = names.dropLast().joined(separator: ", ") + " or " + names.last!
    throw ConfigProblem("\(key)=\(value) is not one of \(listed)")
  }

  /// Space-separated kernel key names (`KEY_ENTER KEY_KPENTER`), duplicates dropped.
  /// Digit keys are refused: a digit is always a digit (pinpadd.conf(5), [Entry]).
  static func keyList(_ key: String, _ value: String) throws(ConfigProblem) -> [KeyCode] {
    var keys: [KeyCode] = []
    for name in words(value) {
      guard let code = KeyCode(name: name) else {
        let hint = KeyCode(name: name.uppercased()) != nil ? " (names are upper case)" : ""
        throw ConfigProblem("\(key): \(name) is not a kernel key name\(hint)")
      }
      guard code.digit == nil else {
        throw ConfigProblem("\(key): \(name) is a digit key and cannot be a control key")
      }
      if !keys.contains(code) { keys.append(code) }
    }
    return keys
  }

  /// A non-empty set of distinct digits, e.g. `0123456789` or `13579`.
  static func digits(_ key: String, _ value: String) throws(ConfigProblem) -> Set<UInt8> {
    var digits = Set<UInt8>()
    for character in value {
      guard let ascii = character.asciiValue, (48...57).contains(ascii) else {
        throw ConfigProblem("\(key)=\(value) may contain only the digits 0-9")
      }
      guard digits.insert(ascii - 48).inserted else {
        throw ConfigProblem("\(key)=\(value) lists \(character) twice")
      }
    }
    return digits
  }

  /// `WIDTHxHEIGHT`, each 16...8192 pixels.
  static func size(_ key: String, _ value: String) throws(ConfigProblem) -> (Int, Int) {
    let parts = value.split(separator: "x", omittingEmptySubsequences: false)
    let limits = 16...8192
    guard parts.count == 2,
      parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
      let width = Int(parts[0]), let height = Int(parts[1])
    else {
      throw ConfigProblem("\(key)=\(value) is not a size like 800x480")
    }
    guard limits.contains(width), limits.contains(height) else {
      throw ConfigProblem("\(key)=\(value): width and height must be 16..8192")
    }
    return (width, height)
  }

  /// The space-separated words of a list value.
  static func words(_ value: String) -> [String] {
    value.split(whereSeparator: \.isWhitespace).map(String.init)
  }

  /// Seconds as `duration` reads them back: "5", "0.015".
  static func secondsText(_ duration: Duration) -> String {
    let nanoseconds = duration.nanoseconds
    let sign = nanoseconds < 0 ? "-" : ""
    let magnitude = nanoseconds.magnitude
    let whole = magnitude / 1_000_000_000
    let fraction = magnitude % 1_000_000_000
    if fraction == 0 { return "\(sign)\(whole)" }
    var digits = String(fraction)
    digits = String(repeating: "0", count: 9 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(sign)\(whole).\(digits)"
  }
}

extension Duration {
  /// Seconds as a configuration file writes them: "10", "0.5" (for messages).
  public var secondsText: String { ConfigValue.secondsText(self) }
}
