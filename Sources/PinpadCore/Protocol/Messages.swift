/// The socket protocol (docs/protocol.md, "Socket: framing"): one JSON object per line,
/// at most 4096 bytes.
public enum ProtocolVersion {
  public static let number = 1
  public static let maxLineBytes = 4096
}

/// What a client may send (docs/protocol.md, "Socket: verdict", "Socket: status request",
/// "Socket: open").
public enum ClientRequest: Equatable, Sendable {
  /// `duress`: the controller says the code was a duress code (docs/protocol.md, "Socket:
  /// alarm"); `reason`: why it denied (docs/protocol.md, "Socket: denial reasons"),
  /// passed through in the `verdict` event.
  case verdict(
    id: String, granted: Bool, message: String?, duress: Bool = false, reason: String? = nil)
  case status
  /// `{"type":"open","door":NAME}`: unlock a door (docs/protocol.md, "Socket: open").
  case open(door: String)

  /// Parses one line (without its newline). The error is the `reason` of the
  /// `error` reply; it never repeats the line.
  ///
  /// A verdict laid out plainly (string, true, false and null values without escapes,
  /// each known key once) is read in one pass without building a JSON tree; anything
  /// else, and `quick: false`, goes the full way. Both give the same request or error
  /// (the tests and the socket-line fuzz target hold them to it).
  public static func parse(_ line: some Collection<UInt8>, quick: Bool = true) -> Result<
    ClientRequest, RequestError
  > {
    if quick,
      let fields = line.withContiguousStorageIfAvailable({ QuickVerdict.fields($0) }) ?? nil
    {
      return verdict(fields)
    }
    let value: JSONValue
    do { value = try JSONValue.parse(line) } catch {
      // Well-formed JSON with a number beyond a double's range is not "malformed".
      if error.message == JSONError.numberOutOfRange {
        return .failure(RequestError("\(error) (numbers must fit a 64-bit double)"))
      }
      return .failure(RequestError("malformed JSON: \(error)"))
    }
    guard case .object = value else { return .failure(RequestError("expected a JSON object")) }
    guard let type = value["type"]?.stringValue else {
      return .failure(RequestError("missing \"type\""))
    }
    switch type {
    case "status": return .success(.status)
    case "open":
      guard let door = value["door"]?.stringValue, DoorConfig.isValidName(door) else {
        return .failure(RequestError("open needs a \"door\" name"))
      }
      return .success(.open(door: door))
    case "verdict":
      return verdict(
        QuickVerdict.Fields(
          id: value["id"], result: value["result"], message: value["message"],
          duress: value["duress"], reason: value["reason"]))
    default:
      return .failure(RequestError("unknown type \"\(String(type.prefix(32)))\""))
    }
  }

  /// A verdict from its members as the line gave them (nil: absent).
  private static func verdict(_ value: QuickVerdict.Fields) -> Result<ClientRequest, RequestError> {
    guard let id = value.id?.stringValue, !id.isEmpty else {
      return .failure(RequestError("verdict without \"id\""))
    }
    let granted: Bool
    switch value.result?.stringValue {
    case "granted": granted = true
    case "denied": granted = false
    default: return .failure(RequestError("verdict \"result\" must be granted or denied"))
    }
    var message: String? = nil
    if let m = value.message {
      if case .null = m {
      } else if let s = m.stringValue {
        // Sanitised where it enters: no display, log or snapshot sees the raw text.
        message = UntrustedText.sanitized(s)
      } else {
        return .failure(RequestError("verdict \"message\" must be a string"))
      }
    }
    var duress = false
    if let d = value.duress {
      switch d {
      case .null: break
      case .bool(let b): duress = b
      default: return .failure(RequestError("verdict \"duress\" must be true or false"))
      }
    }
    var reason: String? = nil
    switch value.reason {
    case nil, .null?: break
    case .string(let word)? where isReasonWord(word): reason = granted ? nil : word
    default:
      return .failure(
        RequestError("verdict \"reason\" must be a word of a-z and _ (at most 32)"))
    }
    return .success(
      .verdict(id: id, granted: granted, message: message, duress: duress, reason: reason))
  }
}

/// The one-pass reading of a plain verdict line for `ClientRequest.parse`: an object of
/// the members `type` ("verdict"), `id`, `result`, `message`, `duress` and `reason`, each
/// at most once, whose values are strings of printable ASCII without escapes, `true`,
/// `false` or `null`, with JSON's blank space around them. Gives the members as
/// `JSONValue`s, exactly as the JSON parser would; nil for anything else, which the
/// full reading then takes (to the same request, or to its error).
enum QuickVerdict {
  /// A verdict's members as a line gave them (nil: absent), whichever reading read it.
  struct Fields {
    var id, result, message, duress, reason: JSONValue?
  }

  static func fields(_ p: UnsafeBufferPointer<UInt8>) -> Fields? {
    var i = 0
    let n = p.count
    func skipBlank() {
      while i < n, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
    }
    /// The bytes of a string of printable ASCII without escapes, from its opening quote
    /// (a key, or a value before it is known to be needed as a String).
    func stringBytes() -> Range<Int>? {
      guard i < n, p[i] == UInt8(ascii: "\"") else { return nil }
      let start = i + 1
      var j = start
      while j < n, p[j] != UInt8(ascii: "\"") {
        guard p[j] >= 0x20, p[j] < 0x7F, p[j] != UInt8(ascii: "\\") else { return nil }
        j += 1
      }
      guard j < n else { return nil }
      i = j + 1
      return start..<j
    }
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: p[range]), as: UTF8.self)
    }
    func bytes(_ range: Range<Int>, are word: StaticString) -> Bool {
      guard range.count == word.utf8CodeUnitCount else { return false }
      for k in 0..<range.count where p[range.lowerBound + k] != word.utf8Start[k] { return false }
      return true
    }
    func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
      let count = word.utf8CodeUnitCount
      guard i + count <= n else { return nil }
      for k in 0..<count where p[i + k] != word.utf8Start[k] { return nil }
      i += count
      return value
    }
    var fields = Fields()
    var isVerdict = false
    var seen: UInt8 = 0
    skipBlank()
    guard i < n, p[i] == UInt8(ascii: "{") else { return nil }
    i += 1
    skipBlank()
    guard i < n, p[i] != UInt8(ascii: "}") else { return nil }  // {}: no type
    while true {
      skipBlank()
      guard let key = stringBytes() else { return nil }
      skipBlank()
      guard i < n, p[i] == UInt8(ascii: ":") else { return nil }
      i += 1
      skipBlank()
      guard i < n else { return nil }
      let value: JSONValue
      var isVerdictWord = false  // the value is the string "verdict"
      switch p[i] {
      case UInt8(ascii: "\""):
        guard let range = stringBytes() else { return nil }
        isVerdictWord = bytes(range, are: "verdict")
        value = isVerdictWord ? .string("verdict") : .string(text(range))
      case UInt8(ascii: "t"):
        guard let v = literal("true", .bool(true)) else { return nil }
        value = v
      case UInt8(ascii: "f"):
        guard let v = literal("false", .bool(false)) else { return nil }
        value = v
      case UInt8(ascii: "n"):
        guard let v = literal("null", .null) else { return nil }
        value = v
      default:
        return nil  // numbers, arrays, objects: the full reading
      }
      let bit: UInt8
      if bytes(key, are: "type") {
        guard isVerdictWord else { return nil }
        isVerdict = true
        bit = 1
      } else if bytes(key, are: "id") {
        fields.id = value
        bit = 2
      } else if bytes(key, are: "result") {
        fields.result = value
        bit = 4
      } else if bytes(key, are: "message") {
        fields.message = value
        bit = 8
      } else if bytes(key, are: "duress") {
        fields.duress = value
        bit = 16
      } else if bytes(key, are: "reason") {
        fields.reason = value
        bit = 32
      } else {
        return nil
      }
      guard seen & bit == 0 else { return nil }  // a member twice: the full reading
      seen |= bit
      skipBlank()
      guard i < n else { return nil }
      if p[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      guard p[i] == UInt8(ascii: "}") else { return nil }
      i += 1
      break
    }
    skipBlank()
    guard i == n, isVerdict else { return nil }
    return fields
  }
}

/// A denial's reason (the words of docs/protocol.md, "Socket: denial reasons", or a
/// controller's own): 1 to 32 of a-z and `_`, so it can go into the verdict event and
/// MQTT as is.
public func isReasonWord(_ word: String) -> Bool {
  (1...32).contains(word.utf8.count) && word.utf8.allSatisfy { (97...122).contains($0) || $0 == 95 }
}

/// The reason sent back in `{"type":"error","reason":...}`.
public struct RequestError: Error, Equatable, Sendable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}

/// Lines the daemon sends (docs/protocol.md, "Socket"). Each is one line of JSON with its
/// newline. Only `appendCode` carries digits, and it writes them into a caller's byte
/// buffer. The fixed-shape lines are written byte by byte (`JSONLine`); `status` goes
/// through `JSONValue`. The tests hold both to the same text.
public enum DaemonMessage {
  public static func hello(version: String) -> String {
    var out = JSONLine(type: "hello")
    out.int("protocol", ProtocolVersion.number)
    out.string("version", version)
    return out.line()
  }

  public static func entry(keypad: String, event: EntryEvent, length: Int) -> String {
    text { entry(keypad: keypad, event: event, length: length, into: &$0) }
  }

  public static func verdict(id: String, result: String, reason: String? = nil) -> String {
    text { verdict(id: id, result: result, reason: reason, into: &$0) }
  }

  public static func lockout(keypad: String, seconds: Int) -> String {
    text { lockout(keypad: keypad, seconds: seconds, into: &$0) }
  }

  /// `{"type":"keypad","keypad":...,"event":"added|removed","device":...,"role":...}`:
  /// `role` says whether the device is the keypad or its card reader.
  public static func keypad(
    name: String, added: Bool, device: String, role: DeviceRole = .keypad
  ) -> String {
    text { keypad(name: name, added: added, device: device, role: role, into: &$0) }
  }

  /// `{"type":"alarm","reason":"duress","keypad":...,"id":...}` (docs/protocol.md,
  /// "Socket: alarm").
  public static func alarm(reason: String, keypad: String, id: String) -> String {
    text { alarm(reason: reason, keypad: keypad, id: id, into: &$0) }
  }

  public static func error(_ reason: String) -> String {
    text { error(reason, into: &$0) }
  }

  // The same lines written into a caller's buffer (emptied first, its capacity kept):
  // the shell's per-key path (`OutgoingLines`) builds them with no allocation.

  public static func entry(
    keypad: String, event: EntryEvent, length: Int, into storage: inout [UInt8]
  ) {
    var out = JSONLine(type: "entry", reusing: &storage)
    out.string("keypad", keypad)
    out.string("event", event.rawValue)
    out.int("length", length)
    out.finish(into: &storage)
  }

  public static func verdict(
    id: String, result: String, reason: String?, into storage: inout [UInt8]
  ) {
    var out = JSONLine(type: "verdict", reusing: &storage)
    out.string("id", id)
    out.string("result", result)
    if let reason { out.string("reason", reason) }
    out.finish(into: &storage)
  }

  /// The same for a `VerdictResult`: its word is written as it is (nothing to escape).
  public static func verdict(
    id: String, result: VerdictResult, reason: String?, into storage: inout [UInt8]
  ) {
    var out = JSONLine(type: "verdict", reusing: &storage)
    out.string("id", id)
    out.word("result", result.word)
    if let reason { out.string("reason", reason) }
    out.finish(into: &storage)
  }

  public static func lockout(keypad: String, seconds: Int, into storage: inout [UInt8]) {
    var out = JSONLine(type: "lockout", reusing: &storage)
    out.string("keypad", keypad)
    out.int("seconds", seconds)
    out.finish(into: &storage)
  }

  public static func keypad(
    name: String, added: Bool, device: String, role: DeviceRole, into storage: inout [UInt8]
  ) {
    var out = JSONLine(type: "keypad", reusing: &storage)
    out.string("keypad", name)
    out.word("event", added ? "added" : "removed")
    out.string("device", device)
    out.word("role", role == .keypad ? "keypad" : "card_reader")
    out.finish(into: &storage)
  }

  public static func alarm(reason: String, keypad: String, id: String, into storage: inout [UInt8])
  {
    var out = JSONLine(type: "alarm", reusing: &storage)
    out.string("reason", reason)
    out.string("keypad", keypad)
    out.string("id", id)
    out.finish(into: &storage)
  }

  public static func error(_ reason: String, into storage: inout [UInt8]) {
    var out = JSONLine(type: "error", reusing: &storage)
    out.string("reason", reason)
    out.finish(into: &storage)
  }

  /// A line written by one of the `into:` builders, as a String.
  static func text(_ write: (inout [UInt8]) -> Void) -> String {
    var bytes: [UInt8] = []
    write(&bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `{"type":"status", ...fields}`.
  public static func status(_ fields: [(String, JSONValue)]) -> String {
    line([("type", .string("status"))] + fields)
  }

  static func line(_ members: [(String, JSONValue)]) -> String {
    JSONValue.object(members).serialized + "\n"
  }

  /// Appends `{"type":"code","id":...,"keypad":...,"code":"DIGITS","at":...}\n` to
  /// `buffer`, writing the digits straight from `digits` into it (no String and no
  /// other buffer ever holds them). A `card` adds `"card":"DIGITS"` after the code; empty
  /// `digits` with a card leave `code` out (a card alone, docs/protocol.md, "Socket:
  /// code"). The caller reserves room for the whole line (so the buffer never
  /// reallocates), locks it, and zeroes the bytes once they are sent.
  public static func appendCode(
    id: String, keypad: String, digits: SecretDigits, card: SecretDigits? = nil, at: String,
    to buffer: inout [UInt8]
  ) {
    appendCode(id: id, keypad: keypad, digits: digits, card: card, to: &buffer) {
      JSONLine.appendString(at, to: &$0)
    }
  }

  /// The same with `at` the UTC time of `wallNanoseconds` (`UTCTimestamp`), written
  /// straight into `buffer`: what the daemon sends.
  public static func appendCode(
    id: String, keypad: String, digits: SecretDigits, card: SecretDigits? = nil,
    wallNanoseconds: Int64, to buffer: inout [UInt8]
  ) {
    appendCode(id: id, keypad: keypad, digits: digits, card: card, to: &buffer) {
      $0.append(UInt8(ascii: "\""))
      UTCTimestamp.append(wallNanoseconds: wallNanoseconds, to: &$0)
      $0.append(UInt8(ascii: "\""))
    }
  }

  private static func appendCode(
    id: String, keypad: String, digits: SecretDigits, card: SecretDigits?,
    to buffer: inout [UInt8], at appendAt: (inout [UInt8]) -> Void
  ) {
    JSONLine.append("{\"type\":\"code\",\"id\":", to: &buffer)
    JSONLine.appendString(id, to: &buffer)
    JSONLine.append(",\"keypad\":", to: &buffer)
    JSONLine.appendString(keypad, to: &buffer)
    if !digits.isEmpty || card == nil {
      JSONLine.append(",\"code\":\"", to: &buffer)
      digits.appendASCII(to: &buffer)
      JSONLine.append("\"", to: &buffer)
    }
    if let card {
      JSONLine.append(",\"card\":\"", to: &buffer)
      card.appendASCII(to: &buffer)
      JSONLine.append("\"", to: &buffer)
    }
    JSONLine.append(",\"at\":", to: &buffer)
    appendAt(&buffer)
    JSONLine.append("}\n", to: &buffer)
  }
}
