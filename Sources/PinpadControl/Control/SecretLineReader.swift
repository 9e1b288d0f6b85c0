import PinpadControlCore
import PinpadSystem

/// The one reader of the daemon's lines for pinpadctl (`DaemonConnection` for `serve`
/// and the bridge, `LineConnection` for the one-shot commands):
/// reads from `fd` into a `LockedLineBuffer` (locked in memory, zeroed as lines are used,
/// at most `capacity` bytes), so a `code` line's digits never land in a growable array or
/// a String (docs/protocol.md, "Socket: code"). A line longer than the buffer ends the
/// connection. One read at a time (`fill`, `fillIfAvailable`), then the complete lines.
final class SecretLineReader {
  static let capacity = LockedLineBuffer.defaultCapacity
  let fd: FileDescriptor
  private let buffer = LockedLineBuffer(capacity: SecretLineReader.capacity)

  init(fd: FileDescriptor) {
    self.fd = fd
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

  /// Zeroes everything read (the connection is gone).
  func wipe() { buffer.wipe() }
}
