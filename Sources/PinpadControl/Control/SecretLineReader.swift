import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// The one reader of secrets for pinpadctl: the daemon's lines (`DaemonConnection` for
/// `serve` and the bridge, `LineConnection` for the one-shot commands) and the codes and
/// cards a person types or pipes to `hash` (`typedInput()`). It reads from `fd` into a
/// `LockedLineBuffer` (locked in memory, zeroed as lines are used, at most `capacity`
/// bytes), so a code's digits never land in a growable array or a String
/// (docs/protocol.md, "Socket: code"). A daemon's line longer than the buffer ends the
/// connection; a typed one is kept cut and marked `tooLong`. One read at a time (`fill`,
/// `fillIfAvailable`), then the complete lines.
final class SecretLineReader {
  static let capacity = LockedLineBuffer.defaultCapacity
  /// The most a person may type for `hash`: the longest card (`CodesLookup.maxCardLength`).
  static let typedCapacity = CodesLookup.maxCardLength
  let fd: FileDescriptor
  private let buffer: LockedLineBuffer

  init(fd: FileDescriptor, capacity: Int = SecretLineReader.capacity) {
    self.fd = fd
    buffer = LockedLineBuffer(capacity: capacity)
  }

  /// A reader of standard input for one code or card (`typedCapacity` bytes and the
  /// newline).
  static func typedInput() -> SecretLineReader {
    SecretLineReader(fd: .standardInput, capacity: typedCapacity + 1)
  }

  enum ReadError: Error {
    case closed, lineTooLong
    case failed(Errno)
  }

  /// One read(2) of what `fd` has, for a loop that knows it is readable; the lines are
  /// then taken with `completeLine()`. A line longer than the buffer ends it.
  func fill() throws(ReadError) {
    let n: Int
    do { n = try buffer.append { space throws(Errno) in try fd.read(into: space) } } catch {
      throw .failed(error)
    }
    if buffer.isFull, n == 0 { throw .lineTooLong }
    if n == 0 { throw .closed }
  }

  /// `fill()` for a non-blocking `fd`: false when the kernel had nothing (EAGAIN), true
  /// when bytes were read. Take the complete lines before calling it again: the buffer
  /// holds at most `capacity` bytes.
  func fillIfAvailable() throws(ReadError) -> Bool {
    do { try fill() } catch {
      if case .failed(let errno) = error, errno == .wouldBlock { return false }
      throw error
    }
    return true
  }

  /// The next line already read, without its newline, valid until the next call (then
  /// zeroed); nil when no complete line is left.
  func completeLine() -> UnsafeBufferPointer<UInt8>? {
    buffer.completeLine().map { UnsafeBufferPointer($0) }
  }

  /// The same line, writable in place (to zero a secret in it before it is dropped).
  func completeMutableLine() -> UnsafeMutableBufferPointer<UInt8>? {
    buffer.completeLine()
  }

  /// Zeroes everything read (the connection is gone, the code used).
  func wipe() { buffer.wipe() }

  // MARK: What a person types

  /// A code or card a person typed or piped in.
  struct TypedLine {
    /// What was kept (at most the buffer's capacity less the newline), valid until the
    /// next call on the reader, which zeroes it.
    let bytes: UnsafeBufferPointer<UInt8>
    /// More came than the buffer holds: the caller refuses the line.
    let tooLong: Bool
    /// The reader whose buffer holds `bytes`, kept while the line is.
    fileprivate let reader: SecretLineReader
  }

  /// One line of `fd` (or all of it up to EOF), one byte per read(2) so nothing past the
  /// newline is taken (the rest is the next reader's, or the next program's); carriage
  /// returns are dropped. Endless input (/dev/zero) or a line too long: it stops there.
  func readTypedLine() -> TypedLine {
    buffer.wipe()
    var tooLong = false
    while let byte = readByte(), byte != 0x0A {
      if byte != 0x0D { tooLong = !appendTyped(byte) }
      if tooLong { break }
    }
    return endTyped(tooLong: tooLong)
  }

  /// Reads a line from the terminal `fd` with echo off (termios), handling Backspace and
  /// Ctrl-U itself, after `prompt` on standard error; nil when cancelled (Ctrl-C, Ctrl-D)
  /// or unreadable. The terminal's settings are restored on every path.
  func readFromTerminal(prompt: String) -> TypedLine? {
    buffer.wipe()
    let raw = fd.rawValue
    var saved = termios()
    guard tcgetattr(raw, &saved) == 0 else { return nil }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
    withUnsafeMutableBytes(of: &quiet.c_cc) {
      $0[Int(VMIN)] = 1
      $0[Int(VTIME)] = 0
    }
    guard tcsetattr(raw, TCSAFLUSH, &quiet) == 0 else { return nil }
    defer {
      _ = tcsetattr(raw, TCSAFLUSH, &saved)
      try? FileDescriptor.standardError.writeAll([0x0A])
    }
    try? FileDescriptor.standardError.writeAll(Array(prompt.utf8))
    var tooLong = false
    while true {
      guard let byte = readByte() else { return nil }
      switch byte {
      case 0x0D, 0x0A: return endTyped(tooLong: tooLong)
      case 0x03, 0x04: return nil  // Ctrl-C, Ctrl-D
      case 0x7F, 0x08: buffer.removeLast()
      case 0x15: buffer.wipe()  // Ctrl-U
      default: if !appendTyped(byte) { tooLong = true }
      }
    }
  }

  /// One byte of `fd`, one read(2); nil at the end of the input or on an error.
  private func readByte() -> UInt8? {
    var byte: UInt8 = 0
    defer { byte = 0 }
    let n =
      (try? withUnsafeMutableBytes(of: &byte) { (b) throws(Errno) in try fd.read(into: b) }) ?? -1
    return n == 1 ? byte : nil
  }

  /// Appends a typed byte; false when only the newline's room is left.
  private func appendTyped(_ byte: UInt8) -> Bool {
    guard buffer.filled < buffer.capacity - 1 else { return false }
    buffer.append(contentsOf: CollectionOfOne(byte))
    return true
  }

  /// Ends the typed line with its newline and hands it out.
  private func endTyped(tooLong: Bool) -> TypedLine {
    buffer.append(contentsOf: CollectionOfOne(0x0A))
    let line = buffer.completeLine().map { UnsafeBufferPointer($0) }
    return TypedLine(
      bytes: line ?? UnsafeBufferPointer(start: nil, count: 0), tooLong: tooLong, reader: self)
  }
}
