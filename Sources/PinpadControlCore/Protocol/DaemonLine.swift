import PinpadCore

/// The controller's side of the socket protocol: one line from the daemon, decoded
/// (docs/protocol.md, "Socket"). The daemon writes these with `DaemonMessage`; this reads
/// them back for pinpadctl (`serve`, the bridge, the fleet controller's peers).
///
/// A `code` line is read in place: its `code` and `card` stay byte ranges into the
/// caller's line (`CodeLine`), never a String, so they can be checked and zeroed where
/// they are (the line itself lives in a `LockedLineBuffer`). Every other line holds no
/// secret and is read as JSON.
public enum DaemonLine: Equatable, Sendable {
  /// docs/protocol.md, "Socket: hello".
  case hello(protocolVersion: Int, version: String)
  /// docs/protocol.md, "Socket: code".
  case code(CodeLine)
  /// docs/protocol.md, "Socket: entry".
  case entry(keypad: String, event: EntryEvent, length: Int)
  /// docs/protocol.md, "Socket: verdict event": `reason` only with `denied`.
  case verdict(id: String, result: VerdictResult, reason: String?)
  /// docs/protocol.md, "Socket: lockout".
  case lockout(keypad: String, seconds: Int)
  /// docs/protocol.md, "Socket: keypad".
  case keypad(keypad: String, added: Bool, device: String, role: DeviceRole)
  /// docs/protocol.md, "Socket: alarm".
  case alarm(reason: String, keypad: String, id: String)
  /// docs/protocol.md, "Socket: door": `by` only with `unlocked`.
  case door(door: String, event: String, by: String?)
  /// docs/protocol.md, "Socket: error".
  case error(reason: String)
  /// docs/protocol.md, "Socket: status": the whole answer (its members are many and
  /// grow; `BridgeCore` reads what it needs).
  case status(JSONValue)
  /// A `type` this pinpadctl does not know (a newer daemon's): passed on, not refused;
  /// with its `keypad` when it has one.
  case other(type: String, keypad: String?)

  /// The largest line taken from the daemon: a `status` with many keypads and doors
  /// fits many times over (and `LockedLineBuffer.defaultCapacity` holds it).
  public static let maxBytes = 64 * 1024
  /// A `code` line is under 300 bytes; one over this is refused unread.
  public static let maxCodeLineBytes = ProtocolVersion.maxLineBytes
  /// Attempt ids are 32 hex digits today; up to this many printable bytes are taken.
  public static let maxIDBytes = 128
  /// Names (keypads, doors, devices) and reasons longer than this are refused.
  public static let maxNameBytes = 256

  /// Why a line was not taken. Never quotes the line: it may hold digits.
  public enum Problem: Error, Equatable, Sendable {
    case tooLong
    case notAnObject
    case missingType
    /// A known type with a member missing or of the wrong kind (the member's name).
    case badMember(type: String, member: String)
  }

  /// Decodes `line` (without its newline; a CR before the newline is ignored). For a
  /// `code` line the ranges point into `line`, which the caller keeps until it has used
  /// and zeroed them.
  public static func decode(_ line: UnsafeBufferPointer<UInt8>) -> Result<DaemonLine, Problem> {
    var line = line
    if let last = line.last, last == 0x0D {
      line = UnsafeBufferPointer(rebasing: line[..<(line.count - 1)])
    }
    guard line.count <= maxBytes else { return .failure(.tooLong) }
    // The members as byte ranges first: no String of the line exists before it is known
    // not to be a code line.
    guard let fields = JSONFields(line) else { return .failure(.notAnObject) }
    guard let typeRange = fields.lastRange(of: "type") else { return .failure(.missingType) }
    if bytes(line, typeRange, are: "code") {
      guard line.count <= maxCodeLineBytes else { return .failure(.tooLong) }
      return CodeLine.decode(fields, line).map { .code($0) }
    }
    guard let value = try? JSONValue.parse(line), case .object = value else {
      return .failure(.notAnObject)
    }
    guard let type = value["type"]?.stringValue else { return .failure(.missingType) }
    // A `code` the byte reading did not see (an escaped word, or "type" given twice and
    // read otherwise) is refused, never passed on as text.
    guard type != "code" else { return .failure(.badMember(type: "code", member: "type")) }
    return decode(type: type, value)
  }

  /// The same for a line in an array (tests, and lines that are not secret).
  public static func decode(_ line: [UInt8]) -> Result<DaemonLine, Problem> {
    line.withUnsafeBufferPointer { decode($0) }
  }

  private static func decode(type: String, _ value: JSONValue) -> Result<DaemonLine, Problem> {
    let reader = Members(type: type, value: value)
    do throws(Problem) {
      switch type {
      case "hello":
        return .success(
          .hello(protocolVersion: try reader.int("protocol"), version: try reader.name("version")))
      case "entry":
        let keypad = try reader.name("keypad")
        guard let event = EntryEvent(rawValue: try reader.name("event")) else {
          throw Problem.badMember(type: type, member: "event")
        }
        return .success(.entry(keypad: keypad, event: event, length: try reader.int("length")))
      case "verdict":
        let id = try reader.id("id")
        guard let result = VerdictResult(rawValue: try reader.name("result")) else {
          throw Problem.badMember(type: type, member: "result")
        }
        var reason: String? = nil
        if let word = try reader.optionalName("reason") {
          guard isReasonWord(word) else { throw Problem.badMember(type: type, member: "reason") }
          reason = result == .denied ? word : nil
        }
        return .success(.verdict(id: id, result: result, reason: reason))
      case "lockout":
        return .success(
          .lockout(keypad: try reader.name("keypad"), seconds: try reader.int("seconds")))
      case "keypad":
        let keypad = try reader.name("keypad")
        let added: Bool
        switch try reader.name("event") {
        case "added": added = true
        case "removed": added = false
        default: throw Problem.badMember(type: type, member: "event")
        }
        let device = try reader.name("device")
        // `role` came with card readers; a daemon without them sent keypads only.
        var role = DeviceRole.keypad
        if let word = try reader.optionalName("role") {
          guard let named = DeviceRole(rawValue: word) else {
            throw Problem.badMember(type: type, member: "role")
          }
          role = named
        }
        return .success(.keypad(keypad: keypad, added: added, device: device, role: role))
      case "alarm":
        return .success(
          .alarm(
            reason: try reader.name("reason"), keypad: try reader.name("keypad"),
            id: try reader.id("id")))
      case "door":
        let door = try reader.name("door")
        guard DoorConfig.isValidName(door) else {
          throw Problem.badMember(type: type, member: "door")
        }
        let event = try reader.name("event")
        guard DaemonLine.doorEvents.contains(event) else {
          throw Problem.badMember(type: type, member: "event")
        }
        let by = event == "unlocked" ? try reader.optionalName("by") : nil
        return .success(.door(door: door, event: event, by: by))
      case "error":
        // The reason may quote a bad id or name: any length the line allows.
        guard let reason = value["reason"]?.stringValue else {
          throw Problem.badMember(type: type, member: "reason")
        }
        return .success(.error(reason: reason))
      case "status":
        return .success(.status(value))
      default:
        return .success(.other(type: type, keypad: value["keypad"]?.stringValue))
      }
    } catch {
      return .failure(error)
    }
  }

  /// The `event` words of docs/protocol.md, "Socket: door".
  public static let doorEvents: Set<String> = [
    "unlocked", "locked", "opened", "closed", "held_open", "forced", "exit",
  ]

  static func bytes(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, are word: String)
    -> Bool
  {
    line[range].elementsEqual(word.utf8)
  }

  /// The members of one non-secret line, each checked as it is taken.
  private struct Members {
    let type: String
    let value: JSONValue

    func bad(_ member: String) -> Problem { .badMember(type: type, member: member) }

    func int(_ member: String) throws(Problem) -> Int {
      guard let number = value[member]?.numberValue, number >= 0, number <= 1e15,
        number == number.rounded()
      else { throw bad(member) }
      return Int(number)
    }

    func name(_ member: String) throws(Problem) -> String {
      guard let text = try optionalName(member) else { throw bad(member) }
      return text
    }

    /// nil when absent or null.
    func optionalName(_ member: String) throws(Problem) -> String? {
      switch value[member] {
      case nil, .null?: return nil
      case .string(let text)? where (1...DaemonLine.maxNameBytes).contains(text.utf8.count):
        return text
      default: throw bad(member)
      }
    }

    func id(_ member: String) throws(Problem) -> String {
      guard let text = value[member]?.stringValue, CodeLine.isID(text.utf8) else {
        throw bad(member)
      }
      return text
    }
  }
}

/// A `code` line (docs/protocol.md, "Socket: code"): the attempt id and keypad as
/// Strings, the digits as ranges into the line they came in.
public struct CodeLine: Equatable, Sendable {
  public var id: String
  public var keypad: String
  /// The `code` digits in the line: 1 to 32 ASCII digits; nil when a card came alone.
  public var code: Range<Int>?
  /// The `card` digits in the line: 1 to 32 ASCII digits; nil without a card.
  public var card: Range<Int>?

  public init(id: String, keypad: String, code: Range<Int>?, card: Range<Int>?) {
    self.id = id
    self.keypad = keypad
    self.code = code
    self.card = card
  }

  /// Zeroes the digits in `line`, the line this was decoded from (the buffer zeroes the
  /// whole line too when it is dropped; this is for a caller done with them earlier).
  public func zeroSecrets(in line: UnsafeMutableBufferPointer<UInt8>) {
    for range in [code, card].compactMap({ $0 }) where range.upperBound <= line.count {
      for i in range { line[i] = 0 }
    }
  }

  /// An id: 1 to `maxIDBytes` printable ASCII bytes without quote or backslash (the
  /// daemon's are 32 lowercase hex digits), safe in a log line and a JSON string as is.
  static func isID(_ bytes: some Collection<UInt8>) -> Bool {
    (1...DaemonLine.maxIDBytes).contains(bytes.count)
      && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
  }

  /// A code message that came over MQTT (docs/protocol.md, "Fleet: topics"): a bridge's
  /// `code` line, read as one with or without its `type`, and with or without `keypad`
  /// (the topic names the keypad; `keypad` is then empty). The ranges point into `line`.
  ///
  /// Any peer on the broker may publish one, so its `id` is any string of 1 to
  /// `maxIDBytes` bytes (its escapes read), not only what a daemon makes: the verdict
  /// sends it back as it came, escaped as JSON, and the log shows it cleaned
  /// (`UntrustedText`).
  public static func decode(payload line: UnsafeBufferPointer<UInt8>) -> Result<
    CodeLine, DaemonLine.Problem
  > {
    guard line.count <= DaemonLine.maxCodeLineBytes else { return .failure(.tooLong) }
    guard let fields = JSONFields(line) else { return .failure(.notAnObject) }
    if let type = fields.lastRange(of: "type"), !DaemonLine.bytes(line, type, are: "code") {
      return .failure(.badMember(type: "code", member: "type"))
    }
    return decode(fields, line, fromBroker: true)
  }

  /// `fromBroker`: a fleet's payload (`decode(payload:)`), else a daemon's line.
  static func decode(
    _ fields: JSONFields, _ line: UnsafeBufferPointer<UInt8>, fromBroker: Bool = false
  ) -> Result<CodeLine, DaemonLine.Problem> {
    func bad(_ member: String) -> Result<CodeLine, DaemonLine.Problem> {
      .failure(.badMember(type: "code", member: member))
    }
    // A secret given twice is refused: each copy would have to be found and zeroed.
    for member in ["code", "card"] where fields.count(of: member) > 1 { return bad(member) }
    guard let idRange = fields.lastRange(of: "id") else { return bad("id") }
    let id: String
    if fromBroker {
      guard let text = CodeLine.text(line, idRange),
        (1...DaemonLine.maxIDBytes).contains(text.utf8.count)
      else { return bad("id") }
      id = text
    } else {
      guard isID(line[idRange]) else { return bad("id") }
      id = String(decoding: line[idRange], as: UTF8.self)
    }
    var keypad = ""
    if let keypadRange = fields.lastRange(of: "keypad") {
      guard let text = CodeLine.text(line, keypadRange),
        (1...DaemonLine.maxNameBytes).contains(text.utf8.count)
      else { return bad("keypad") }
      keypad = text
    } else if !fromBroker {
      return bad("keypad")
    }
    let code = fields.range(of: "code")
    let card = fields.range(of: "card")
    guard code != nil || card != nil else { return bad("code") }
    if let code, !isDigits(line[code]) { return bad("code") }
    if let card, !isDigits(line[card]) { return bad("card") }
    return .success(CodeLine(id: id, keypad: keypad, code: code, card: card))
  }

  /// 1 to `SecretDigits.capacity` ASCII digits, looked at in place.
  static func isDigits(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
    (1...SecretDigits.capacity).contains(bytes.count)
      && bytes.allSatisfy { (0x30...0x39).contains($0) }
  }

  /// A non-secret string member's text, its escapes read (the raw bytes when it has
  /// none); nil when the escapes are not JSON's.
  static func text(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
    let raw = line[range]
    guard raw.contains(0x5C) else { return String(decoding: raw, as: UTF8.self) }
    return (try? JSONValue.parse([0x22] + Array(raw) + [0x22]))?.stringValue
  }
}
