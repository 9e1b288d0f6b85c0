import PinpadCore

/// The codes file of `pinpadctl serve` (docs/protocol.md, "Codes file"): one person per line,
/// `NAME:HASH[:OPTION,...]`, `#` comments and empty lines skipped. HASH is a crypt(3)
/// hash of the PIN, or `-` for a person with a card and no PIN. Options:
/// - `duress`: a code of this line grants, and the verdict carries `"duress":true`;
/// - `card=HASH`: the crypt(3) hash of the person's card number;
/// - `tag=KEYID.HEX`, `cardtag=KEYID.HEX`: keyed tags of the PIN and the card
///   (`CodeTag`), written by `pinpadctl hash --key`; lines without them still work;
/// - the rules (`AccessRules`; docs/protocol.md, "Codes file: options"): `from=`,
///   `until=`, `hours=`, `uses=`, `doors=`, `disabled`.
///
/// A line that cannot be parsed is reported as `FILE:LINE: message` and skipped; the
/// others are used. Messages name the person, never a hash.
public enum CodesFile {
  public struct Entry: Equatable, Sendable {
    public var name: String
    /// The line number in the file, from 1.
    public var line: Int
    /// The PIN's crypt(3) hash; nil for a card-only person (`-`).
    public var pinHash: [UInt8]?
    public var cardHash: [UInt8]? = nil
    public var duress = false
    public var pinTag: CodeTag? = nil
    public var cardTag: CodeTag? = nil
    /// When, where and how often the line grants (docs/protocol.md, "Codes file: options").
    public var rules = AccessRules()

    public init(
      name: String, line: Int = 0, pinHash: [UInt8]?, cardHash: [UInt8]? = nil,
      duress: Bool = false, pinTag: CodeTag? = nil, cardTag: CodeTag? = nil
    ) {
      self.name = name
      self.line = line
      self.pinHash = pinHash
      self.cardHash = cardHash
      self.duress = duress
      self.pinTag = pinTag
      self.cardTag = cardTag
    }

    /// The line as written in a codes file.
    public var text: String {
      var options: [String] = []
      if let pinTag { options.append("tag=" + pinTag.text) }
      if let cardHash { options.append("card=" + String(decoding: cardHash, as: UTF8.self)) }
      if let cardTag { options.append("cardtag=" + cardTag.text) }
      if duress { options.append("duress") }
      options += rules.options
      let pin = pinHash.map { String(decoding: $0, as: UTF8.self) } ?? "-"
      return "\(name):\(pin)" + (options.isEmpty ? "" : ":" + options.joined(separator: ","))
    }
  }

  /// The entries of `text` (any bytes) and a `FILE:LINE: message` for each line skipped.
  public static func parse(_ text: some Collection<UInt8>, path: String) -> (
    entries: [Entry], problems: [String]
  ) {
    var entries: [Entry] = []
    var problems: [String] = []
    let lines = Array(text).split(separator: 0x0A, omittingEmptySubsequences: false)
    for (index, rawLine) in lines.enumerated() {
      var line = rawLine
      if line.last == 0x0D { line = line.dropLast() }
      let trimmed = line.drop(while: { $0 == 0x20 || $0 == 0x09 })
      if trimmed.isEmpty || trimmed.first == 0x23 { continue }
      switch parseLine(line, number: index + 1) {
      case .success(let entry): entries.append(entry)
      case .failure(let problem): problems.append("\(path):\(index + 1): \(problem.message)")
      }
    }
    return (entries, problems)
  }

  public struct Problem: Error, Equatable {
    public var message: String
    init(_ message: String) { self.message = message }
  }

  static func parseLine(_ line: ArraySlice<UInt8>, number: Int) -> Result<Entry, Problem> {
    let fields = line.split(separator: 0x3A, maxSplits: 2, omittingEmptySubsequences: false)
    guard fields.count >= 2 else { return .failure(Problem("expected NAME:HASH[:OPTION,...]")) }
    if let problem = nameProblem(fields[0]) { return .failure(Problem(problem)) }
    let name = String(decoding: fields[0], as: UTF8.self)
    var entry = Entry(name: name, line: number, pinHash: nil)
    let pin = fields[1]
    if pin.elementsEqual([0x2D]) {
      entry.pinHash = nil
    } else {
      if let problem = hashProblem(pin) {
        return .failure(Problem("the hash for \(name) \(problem)"))
      }
      entry.pinHash = Array(pin)
    }
    if fields.count == 3 {
      for option in fields[2].split(separator: 0x2C, omittingEmptySubsequences: false) {
        if let problem = apply(option, to: &entry) {
          return .failure(Problem("\(name): \(problem)"))
        }
      }
    }
    if entry.pinHash == nil, entry.cardHash == nil {
      return .failure(Problem("\(name) has neither a PIN hash nor card=HASH"))
    }
    if entry.pinHash == nil, entry.pinTag != nil {
      return .failure(Problem("\(name): tag= needs a PIN hash"))
    }
    if entry.cardHash == nil, entry.cardTag != nil {
      return .failure(Problem("\(name): cardtag= needs card=HASH"))
    }
    return .success(entry)
  }

  /// Sets one option on `entry`; what is wrong with it, nil when it is fine.
  static func apply(_ option: ArraySlice<UInt8>, to entry: inout Entry) -> String? {
    let parts = option.split(separator: 0x3D, maxSplits: 1, omittingEmptySubsequences: false)
    let key = String(decoding: parts[0], as: UTF8.self)
    let value = parts.count == 2 ? parts[1] : nil
    if let problem = entry.rules.apply(key, value) { return problem.isEmpty ? nil : problem }
    switch (key, value) {
    case ("duress", nil):
      if entry.duress { return "duress is given twice" }
      entry.duress = true
    case ("card", let value?):
      if entry.cardHash != nil { return "card= is given twice" }
      if let problem = hashProblem(value) { return "the card hash \(problem)" }
      entry.cardHash = Array(value)
    case ("tag", let value?), ("cardtag", let value?):
      guard let tag = CodeTag(option: value) else {
        return "\(key)= is not KEYID.HEX (4 hex digits, a dot, 1 to 8 hex digits)"
      }
      if key == "tag" {
        if entry.pinTag != nil { return "tag= is given twice" }
        entry.pinTag = tag
      } else {
        if entry.cardTag != nil { return "cardtag= is given twice" }
        entry.cardTag = tag
      }
    case ("", _): return "an empty option"
    case ("duress", _): return "duress takes no value"
    case ("card", nil), ("tag", nil), ("cardtag", nil): return "\(key) needs =VALUE"
    default:
      let shown = parts[0].allSatisfy { (0x21...0x7E).contains($0) } ? key : "?"
      return
        "unknown option \(shown) (expected duress, card=HASH, tag=, cardtag=, from=, until=, hours=, uses=, doors=, disabled)"
    }
    return nil
  }

  /// What is wrong with a person's name (the bytes before the first colon), nil when it
  /// is fine: it must be UTF-8, not empty, not start with `#` (the line would be a
  /// comment), not start or end with a space, and hold no control character (C0, DEL,
  /// C1) and no invisible formatting character (bidi overrides and isolates,
  /// zero-width characters, the BOM, line separators), which would make a log line or
  /// a listing show another name than the one in the file. Shared by the parser and
  /// `pinpadctl hash`.
  public static func nameProblem(_ bytes: some Collection<UInt8>) -> String? {
    guard let name = String(validating: bytes, as: UTF8.self) else {
      return "the name is not UTF-8"
    }
    guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last else {
      return "the name is empty"
    }
    if first == "#" { return "the name starts with #, which would make the line a comment" }
    if first.properties.isWhitespace || last.properties.isWhitespace {
      return "the name starts or ends with a space"
    }
    for scalar in name.unicodeScalars {
      switch scalar.value {
      case 0x00...0x1F, 0x7F...0x9F: return "the name holds a control character"
      default: break
      }
      switch scalar.properties.generalCategory {
      case .format, .lineSeparator, .paragraphSeparator, .control, .surrogate:
        return
          "the name holds an invisible formatting character (U+\(hex(scalar.value)):"
          + " a bidi override, a zero-width character or a BOM)"
      default: break
      }
    }
    return nil
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// What is wrong with a crypt(3) hash field (the end of "the hash for NAME ..."), nil
  /// when it can be one.
  static func hashProblem(_ hash: ArraySlice<UInt8>) -> String? {
    if hash.isEmpty { return "is empty" }
    if hash.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x3A || $0 == 0x2C }) {
      return "contains a space, a colon or a comma"
    }
    if hash.first == 0x21 || hash.first == 0x2A { return "is locked or disabled" }
    if hash.contains(where: { !(0x21...0x7E).contains($0) }) {
      return "holds a byte that is not printable ASCII"
    }
    if hash.first != 0x24 && hash.count != 13 { return "is not a crypt(3) hash" }
    return nil
  }

  /// What is wrong with a codes (or key) file's permission bits, nil when others have
  /// no access: hashes of short codes are cheap to guess, and anyone who can write the
  /// file could add their own.
  public static func modeProblem(_ mode: UInt32) -> String? {
    let others = mode & 0o007
    guard others & 0o006 != 0 else { return nil }
    let octal = String(mode & 0o7777, radix: 8)
    let what = others & 0o004 != 0 ? (others & 0o002 != 0 ? "read and write" : "read") : "write"
    return
      "others may \(what) it (mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal))"
  }
}
