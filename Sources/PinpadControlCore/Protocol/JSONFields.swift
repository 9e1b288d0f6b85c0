/// The string members of one flat JSON object line, as byte ranges into the line: no
/// String is made, so a secret value can be used in place and zeroed with the line.
/// Values that are not strings are skipped; escapes inside strings are kept raw.
public struct JSONFields: Sendable {
  public private(set) var ranges: [(key: [UInt8], range: Range<Int>)] = []

  /// nil when `line` is not one JSON object.
  public init?(_ line: UnsafeBufferPointer<UInt8>) {
    var i = 0
    func skipSpace() {
      while i < line.count, [0x20, 0x09, 0x0D, 0x0A].contains(line[i]) { i += 1 }
    }
    /// A string starting at `i` (on its quote): the range of its contents.
    func string() -> Range<Int>? {
      guard i < line.count, line[i] == 0x22 else { return nil }
      i += 1
      let start = i
      while i < line.count, line[i] != 0x22 {
        i += line[i] == 0x5C ? 2 : 1
      }
      guard i < line.count else { return nil }
      i += 1
      return start..<(i - 1)
    }
    /// Any other value: a number, a literal, or a nested object or array.
    func skipValue() -> Bool {
      var depth = 0
      while i < line.count {
        switch line[i] {
        case 0x22: if string() == nil { return false } else { continue }
        case 0x7B, 0x5B: depth += 1
        case 0x7D, 0x5D:
          if depth == 0 { return true }
          depth -= 1
        case 0x2C where depth == 0: return true
        default: break
        }
        i += 1
      }
      return false
    }
    skipSpace()
    guard i < line.count, line[i] == 0x7B else { return nil }
    i += 1
    skipSpace()
    if i < line.count, line[i] == 0x7D { return }
    while true {
      skipSpace()
      guard let key = string() else { return nil }
      skipSpace()
      guard i < line.count, line[i] == 0x3A else { return nil }
      i += 1
      skipSpace()
      if i < line.count, line[i] == 0x22 {
        guard let value = string() else { return nil }
        ranges.append((Array(line[key]), value))
      } else if !skipValue() {
        return nil
      }
      skipSpace()
      guard i < line.count else { return nil }
      if line[i] == 0x2C {
        i += 1
        continue
      }
      guard line[i] == 0x7D else { return nil }
      return
    }
  }

  /// The raw byte range of string member `key` (its first, where it is given twice).
  public func range(of key: String) -> Range<Int>? {
    let bytes = Array(key.utf8)
    return ranges.first(where: { $0.key == bytes })?.range
  }

  /// Member `key` as a String: only for members that hold no secret.
  public func text(_ key: String, in line: UnsafeBufferPointer<UInt8>) -> String? {
    range(of: key).map { String(decoding: line[$0], as: UTF8.self) }
  }

  /// How many times `key` is given with a string value (a line that gives a secret
  /// member twice is refused by `DaemonLine`: each copy would have to be zeroed).
  public func count(of key: String) -> Int {
    let bytes = Array(key.utf8)
    return ranges.reduce(0) { $0 + ($1.key == bytes ? 1 : 0) }
  }

  /// The raw byte range of the last string member `key`: the one that counts when a
  /// member is given twice (docs/protocol.md, "Socket: framing").
  public func lastRange(of key: String) -> Range<Int>? {
    let bytes = Array(key.utf8)
    return ranges.last(where: { $0.key == bytes })?.range
  }
}
