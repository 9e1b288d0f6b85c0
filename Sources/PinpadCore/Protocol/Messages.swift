/// The socket protocol of SPEC §4: one JSON object per line, at most 4096 bytes.
public enum ProtocolVersion {
  public static let number = 1
  public static let maxLineBytes = 4096
}

/// What a client may send (SPEC §4.3).
public enum ClientRequest: Equatable, Sendable {
  /// `duress`: the controller says the code was a duress code (SPEC §9.2).
  case verdict(id: String, granted: Bool, message: String?, duress: Bool = false)
  case status

  /// Parses one line (without its newline). The error is the `reason` of the
  /// `error` reply; it never repeats the line.
  public static func parse(_ line: some Collection<UInt8>) -> Result<ClientRequest, RequestError> {
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
    case "verdict":
      guard let id = value["id"]?.stringValue, !id.isEmpty else {
        return .failure(RequestError("verdict without \"id\""))
      }
      let granted: Bool
      switch value["result"]?.stringValue {
      case "granted": granted = true
      case "denied": granted = false
      default: return .failure(RequestError("verdict \"result\" must be granted or denied"))
      }
      var message: String? = nil
      if let m = value["message"] {
        if case .null = m {
        } else if let s = m.stringValue {
          // Sanitised where it enters: no display, log or snapshot sees the raw text.
          message = UntrustedText.sanitized(s)
        } else {
          return .failure(RequestError("verdict \"message\" must be a string"))
        }
      }
      var duress = false
      if let d = value["duress"] {
        switch d {
        case .null: break
        case .bool(let b): duress = b
        default: return .failure(RequestError("verdict \"duress\" must be true or false"))
        }
      }
      return .success(.verdict(id: id, granted: granted, message: message, duress: duress))
    default:
      return .failure(RequestError("unknown type \"\(String(type.prefix(32)))\""))
    }
  }
}

/// The reason sent back in `{"type":"error","reason":...}`.
public struct RequestError: Error, Equatable, Sendable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}

/// Lines the daemon sends (SPEC §4.2). Each is one line of JSON with its newline.
/// Only `CodeMessage` carries digits, and it writes them into a caller's byte buffer.
public enum DaemonMessage {
  public static func hello(version: String) -> String {
    line([
      ("type", .string("hello")), ("protocol", .number(Double(ProtocolVersion.number))),
      ("version", .string(version)),
    ])
  }

  public static func entry(keypad: String, event: EntryEvent, length: Int) -> String {
    line([
      ("type", .string("entry")), ("keypad", .string(keypad)), ("event", .string(event.rawValue)),
      ("length", .number(Double(length))),
    ])
  }

  public static func verdict(id: String, result: String) -> String {
    line([("type", .string("verdict")), ("id", .string(id)), ("result", .string(result))])
  }

  public static func lockout(keypad: String, seconds: Int) -> String {
    line([
      ("type", .string("lockout")), ("keypad", .string(keypad)),
      ("seconds", .number(Double(seconds))),
    ])
  }

  public static func keypad(name: String, added: Bool, device: String) -> String {
    line([
      ("type", .string("keypad")), ("keypad", .string(name)),
      ("event", .string(added ? "added" : "removed")), ("device", .string(device)),
    ])
  }

  /// `{"type":"alarm","reason":"duress","keypad":...,"id":...}` (SPEC §9.2).
  public static func alarm(reason: String, keypad: String, id: String) -> String {
    line([
      ("type", .string("alarm")), ("reason", .string(reason)), ("keypad", .string(keypad)),
      ("id", .string(id)),
    ])
  }

  public static func error(_ reason: String) -> String {
    line([("type", .string("error")), ("reason", .string(reason))])
  }

  /// `{"type":"status", ...fields}`.
  public static func status(_ fields: [(String, JSONValue)]) -> String {
    line([("type", .string("status"))] + fields)
  }

  static func line(_ members: [(String, JSONValue)]) -> String {
    JSONValue.object(members).serialized + "\n"
  }

  /// Appends `{"type":"code","id":...,"keypad":...,"code":"DIGITS","at":...}\n` to
  /// `buffer`, writing the digits straight from `digits` (no String ever holds them).
  /// A `card` adds `"card":"DIGITS"` after the code; empty `digits` with a card leave
  /// `code` out (a card alone, SPEC §9.1). The caller zeroes the bytes once they are sent.
  public static func appendCode(
    id: String, keypad: String, digits: SecretDigits, card: SecretDigits? = nil, at: String,
    to buffer: inout [UInt8]
  ) {
    var head = "{\"type\":\"code\",\"id\":"
    JSONValue.writeString(id, to: &head)
    head += ",\"keypad\":"
    JSONValue.writeString(keypad, to: &head)
    buffer.append(contentsOf: head.utf8)
    if !digits.isEmpty || card == nil {
      buffer.append(contentsOf: ",\"code\":\"".utf8)
      digits.withASCII { buffer.append(contentsOf: $0) }
      buffer.append(UInt8(ascii: "\""))
    }
    if let card {
      buffer.append(contentsOf: ",\"card\":\"".utf8)
      card.withASCII { buffer.append(contentsOf: $0) }
      buffer.append(UInt8(ascii: "\""))
    }
    var tail = ",\"at\":"
    JSONValue.writeString(at, to: &tail)
    tail += "}\n"
    buffer.append(contentsOf: tail.utf8)
  }
}
