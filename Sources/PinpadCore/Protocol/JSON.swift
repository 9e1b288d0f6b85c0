/// A JSON value: just enough JSON for the socket protocol's one-object lines.
public enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)): return x == y
    case (.object(let x), .object(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: return false
    }
  }

  /// The member `key` of an object, nil otherwise.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last(where: { $0.0 == key })?.1
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }
  public var numberValue: Double? {
    if case .number(let n) = self { return n }
    return nil
  }
  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  /// Compact JSON text, members in their order.
  public var serialized: String {
    var out = ""
    write(to: &out)
    return out
  }

  public func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n):
      if abs(n) < 1e15, n == Double(Int64(n)) { out += String(Int64(n)) } else { out += "\(n)" }
    case .string(let s): JSONValue.writeString(s, to: &out)
    case .array(let items):
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        item.write(to: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      for (i, (key, value)) in members.enumerated() {
        if i > 0 { out += "," }
        JSONValue.writeString(key, to: &out)
        out += ":"
        value.write(to: &out)
      }
      out += "}"
    }
  }

  static func writeString(_ s: String, to out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}

/// Why a line is not JSON, with the byte offset where reading stopped.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
  public var offset: Int
  public var message: String
  public var description: String { "\(message) at byte \(offset)" }
  /// The message for a well-formed number that no Double can hold (1e400).
  public static let numberOutOfRange = "number out of range"
}

extension JSONValue {
  /// Parses one JSON text (RFC 8259) from UTF-8 bytes; nesting is limited to 32 levels.
  public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
    var reader = JSONReader(bytes: Array(bytes))
    reader.skipSpace()
    let value = try reader.value(depth: 0)
    reader.skipSpace()
    guard reader.atEnd else { throw reader.error("unexpected text after the value") }
    return value
  }

  public static func parse(_ text: String) throws(JSONError) -> JSONValue {
    try parse(Array(text.utf8))
  }
}

private struct JSONReader {
  let bytes: [UInt8]
  var index = 0

  var atEnd: Bool { index >= bytes.count }

  func error(_ message: String) -> JSONError { JSONError(offset: index, message: message) }

  mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  mutating func expect(_ literal: String) throws(JSONError) {
    for b in literal.utf8 {
      guard index < bytes.count, bytes[index] == b else { throw error("invalid literal") }
      index += 1
    }
  }

  mutating func value(depth: Int) throws(JSONError) -> JSONValue {
    guard depth < 32 else { throw error("nesting too deep") }
    guard index < bytes.count else { throw error("unexpected end") }
    switch bytes[index] {
    case UInt8(ascii: "{"):
      index += 1
      var members: [(String, JSONValue)] = []
      skipSpace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
          throw error("expected a member name")
        }
        let key = try string()
        skipSpace()
        try expect(":")
        skipSpace()
        members.append((key, try value(depth: depth + 1)))
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        if bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(members)
        }
        throw error("expected , or }")
      }
    case UInt8(ascii: "["):
      index += 1
      var items: [JSONValue] = []
      skipSpace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      }
      while true {
        skipSpace()
        items.append(try value(depth: depth + 1))
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        if bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items)
        }
        throw error("expected , or ]")
      }
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    default: return .number(try number())
    }
  }

  /// RFC 8259 `number`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, finite.
  mutating func number() throws(JSONError) -> Double {
    let start = index
    func isDigit(_ at: Int) -> Bool { at < bytes.count && (0x30...0x39).contains(bytes[at]) }
    func digits() -> Bool {
      guard isDigit(index) else { return false }
      while isDigit(index) { index += 1 }
      return true
    }
    func invalid() -> JSONError {
      index = start
      return error("invalid value")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else if !digits() {
      throw invalid()
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() else { throw invalid() }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard digits() else { throw invalid() }
    }
    guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
      throw invalid()
    }
    guard value.isFinite else {
      index = start
      throw error(JSONError.numberOutOfRange)
    }
    return value
  }

  mutating func hex4() throws(JSONError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
    var v: UInt32 = 0
    for b in bytes[index..<index + 4] {
      let digit: UInt8
      switch b {
      case 0x30...0x39: digit = b - 0x30
      case 0x41...0x46: digit = b - 0x41 + 10
      case 0x61...0x66: digit = b - 0x61 + 10
      default: throw error("invalid \\u escape")
      }
      v = v << 4 | UInt32(digit)
    }
    index += 4
    return v
  }

  /// `bytes[range]` as text, nil when it is not UTF-8. ASCII, what the protocol's names
  /// and ids are, is taken as it is; only other bytes go through the validation.
  func text(_ range: Range<Int>) -> String? {
    bytes.withUnsafeBufferPointer { all in
      let part = UnsafeBufferPointer(rebasing: all[range])
      if !part.contains(where: { $0 >= 0x80 }) { return String(decoding: part, as: UTF8.self) }
      return String(validating: part, as: UTF8.self)
    }
  }

  mutating func string() throws(JSONError) -> String {
    index += 1  // opening quote
    var scalars = String.UnicodeScalarView()
    var run = index
    func flush(_ end: Int) -> Bool {
      guard run < end else { return true }
      guard let s = text(run..<end) else { return false }
      scalars.append(contentsOf: s.unicodeScalars)
      return true
    }
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        // No escape so far (each one adds a scalar): the string is the bytes as they are.
        if scalars.isEmpty {
          guard let s = text(run..<index) else {
            throw error("invalid UTF-8")
          }
          index += 1
          return s
        }
        guard flush(index) else { throw error("invalid UTF-8") }
        index += 1
        return String(scalars)
      }
      if b < 0x20 { throw error("control character in string") }
      if b == UInt8(ascii: "\\") {
        guard flush(index) else { throw error("invalid UTF-8") }
        index += 1
        guard index < bytes.count else { break }
        let e = bytes[index]
        index += 1
        switch e {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"):
          var code = try hex4()
          if (0xD800..<0xDC00).contains(code) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("lone surrogate") }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("lone surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
          scalars.append(scalar)
        default: throw error("invalid escape")
        }
        run = index
        continue
      }
      index += 1
    }
    throw error("unterminated string")
  }
}
