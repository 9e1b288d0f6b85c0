/// Byte-level writing of the fixed-shape lines the daemon sends (`DaemonMessage`): the
/// same bytes as `JSONValue.serialized` of the same members (the tests compare the two
/// for many names), without building a value or growing a String scalar by scalar.
public struct JSONLine {
  public private(set) var bytes: [UInt8] = []

  /// Starts `{"type":"TYPE"`.
  public init(type: StaticString) {
    var storage: [UInt8] = []
    self.init(type: type, reusing: &storage)
  }

  /// Starts `{"type":"TYPE"` in `storage`'s buffer, moved in (emptied, its capacity
  /// kept): with `finish(into:)` a line is written with no allocation once the buffer
  /// has grown to its size.
  public init(type: StaticString, reusing storage: inout [UInt8]) {
    swap(&bytes, &storage)
    bytes.removeAll(keepingCapacity: true)
    if bytes.capacity < 128 { bytes.reserveCapacity(128) }
    Self.append("{\"type\":\"", to: &bytes)
    Self.append(type, to: &bytes)
    bytes.append(0x22)
  }

  /// `,"KEY":"VALUE"`, the value escaped.
  public mutating func string(_ key: StaticString, _ value: String) {
    self.key(key)
    Self.appendString(value, to: &bytes)
  }

  /// `,"KEY":"VALUE"` for a value that needs no escaping (a fixed word).
  public mutating func word(_ key: StaticString, _ value: StaticString) {
    self.key(key)
    bytes.append(0x22)
    Self.append(value, to: &bytes)
    bytes.append(0x22)
  }

  /// `,"KEY":N`.
  public mutating func int(_ key: StaticString, _ value: Int) {
    self.key(key)
    Self.appendInt(value, to: &bytes)
  }

  private mutating func key(_ key: StaticString) {
    Self.append(",\"", to: &bytes)
    Self.append(key, to: &bytes)
    Self.append("\":", to: &bytes)
  }

  /// `}` and the newline: the finished line.
  public consuming func line() -> String {
    Self.append("}\n", to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `}` and the newline; the finished line's bytes are moved into `storage`.
  public consuming func finish(into storage: inout [UInt8]) {
    Self.append("}\n", to: &bytes)
    swap(&bytes, &storage)
  }

  /// A literal's bytes (keys and fixed words: ASCII that needs no escaping).
  public static func append(_ literal: StaticString, to out: inout [UInt8]) {
    literal.withUTF8Buffer { out.append(contentsOf: $0) }
  }

  /// `"S"` with `"`, `\` and the C0 controls escaped exactly as `JSONValue.writeString`
  /// does (`\n`, `\r`, `\t`, else `\u00XX` in lower case); every other byte as it is,
  /// so UTF-8 passes unchanged.
  public static func appendString(_ s: String, to out: inout [UInt8]) {
    out.append(0x22)
    var s = s
    s.withUTF8 { utf8 in
      var start = 0
      var i = 0
      while i < utf8.count {
        // Eight bytes at a time past those that need no escape (most of every line).
        if i + 8 <= utf8.count,
          !needsEscape(UnsafeRawPointer(utf8.baseAddress! + i).loadUnaligned(as: UInt64.self))
        {
          i += 8
          continue
        }
        let at = i
        let b = utf8[at]
        i += 1
        guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<at]))
        start = at + 1
        out.append(0x5C)
        switch b {
        case 0x22, 0x5C: out.append(b)
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
          let low = b & 15
          out.append(UInt8(ascii: "u"))
          out.append(0x30)
          out.append(0x30)
          out.append(0x30 + (b >> 4))
          out.append(low < 10 ? 0x30 + low : UInt8(ascii: "a") + low - 10)
        }
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
    out.append(0x22)
  }

  /// Whether any of the eight bytes of `word` is below 0x20, `"` or `\`: the classic
  /// has-a-zero-byte test (exact for "any"), on the word and on it XORed with each byte.
  @inline(__always)
  static func needsEscape(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    func hasZeroByte(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
    let below20 = (word &- ones &* 0x20) & ~word & highs != 0
    return below20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
  }

  /// The decimal digits of `value`, as `JSONValue.number` writes a whole number.
  public static func appendInt(_ value: Int, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, in 24 bytes
    var count = 0
    withUnsafeMutableBytes(of: &digits) { raw in
      repeat {
        raw[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      } while magnitude > 0
      for i in stride(from: count - 1, through: 0, by: -1) { out.append(raw[i]) }
    }
  }
}
