import Glibc
import PinpadSystem

/// Reads the daemon's lines into one fixed buffer that is zeroed as lines are used, so
/// a `code` line's digits never land in a growable array or a String
/// (`pinpadctl serve`). Lines longer than the buffer end the connection.
final class SecretLineReader {
  static let capacity = 64 * 1024
  let fd: FileDescriptor
  private let buffer: UnsafeMutablePointer<UInt8>
  private var filled = 0
  /// Length of the line handed out by the last `nextLine`, removed on the next call.
  private var consumed = 0

  init(fd: FileDescriptor) {
    self.fd = fd
    buffer = .allocate(capacity: SecretLineReader.capacity)
    // Locked before any secret is read into it (best effort under RLIMIT_MEMLOCK).
    ProcessSetup.lockPages(buffer, SecretLineReader.capacity)
    buffer.initialize(repeating: 0, count: SecretLineReader.capacity)
  }

  deinit {
    explicitZero(buffer, SecretLineReader.capacity)
    buffer.deallocate()
  }

  /// Starts the buffer with bytes already read from `fd` (at most its capacity).
  func prefill(_ bytes: [UInt8]) {
    let count = min(bytes.count, SecretLineReader.capacity - filled)
    for i in 0..<count { buffer[filled + i] = bytes[i] }
    filled += count
  }

  enum ReadError: Error {
    case closed, lineTooLong
    case failed(Errno)
  }

  /// The next line without its newline, valid until the next call (then zeroed);
  /// reads (blocking) until one is complete.
  func nextLine() throws(ReadError) -> UnsafeBufferPointer<UInt8> {
    while true {
      if let line = completeLine() { return line }
      try fill()
    }
  }

  /// One read(2) of what `fd` has, for a loop that knows it is readable; the lines are
  /// then taken with `completeLine()`. A line longer than the buffer ends it.
  func fill() throws(ReadError) {
    dropConsumed()
    guard filled < SecretLineReader.capacity else { throw .lineTooLong }
    let n: Int
    do {
      n = try fd.read(
        into: UnsafeMutableRawBufferPointer(
          start: buffer + filled, count: SecretLineReader.capacity - filled))
    } catch { throw .failed(error) }
    if n == 0 { throw .closed }
    filled += n
  }

  /// The next line already read, without its newline, valid until the next call (then
  /// zeroed); nil when no complete line is left.
  func completeLine() -> UnsafeBufferPointer<UInt8>? {
    dropConsumed()
    guard let newline = (0..<filled).first(where: { buffer[$0] == 0x0A }) else { return nil }
    consumed = newline + 1
    return UnsafeBufferPointer(start: buffer, count: newline)
  }

  private func dropConsumed() {
    guard consumed > 0 else { return }
    let rest = filled - consumed
    if rest > 0 { memmove(buffer, buffer + consumed, rest) }
    explicitZero(buffer + rest, filled - rest)
    filled = rest
    consumed = 0
  }
}

/// The string members of one flat JSON object line, as byte ranges into the line: no
/// String is made, so a secret value can be used in place and zeroed with the line.
/// Values that are not strings are skipped; escapes inside strings are kept raw.
struct JSONFields {
  private(set) var ranges: [(key: [UInt8], range: Range<Int>)] = []

  /// nil when `line` is not one JSON object.
  init?(_ line: UnsafeBufferPointer<UInt8>) {
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

  /// The raw byte range of string member `key`.
  func range(of key: String) -> Range<Int>? {
    let bytes = Array(key.utf8)
    return ranges.first(where: { $0.key == bytes })?.range
  }

  /// Member `key` as a String: only for members that hold no secret.
  func text(_ key: String, in line: UnsafeBufferPointer<UInt8>) -> String? {
    range(of: key).map { String(decoding: line[$0], as: UTF8.self) }
  }
}
