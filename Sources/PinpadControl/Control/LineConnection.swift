import Glibc
import PinpadCore
import PinpadSystem

/// A blocking client connection to pinpadd's socket for the one-shot commands (`listen`,
/// `status`, `verdict`, `open`): its lines come through the one `SecretLineReader` (the
/// locked, bounded buffer `serve` and the bridge read with), so a `code` line that
/// `listen` passes on never lands in an array or a String.
final class LineConnection {
  private let connection: OwnedDescriptor
  var fd: FileDescriptor { connection.fd }
  let reader: SecretLineReader
  /// When set, `nextLine` waits for the daemon no longer than this (CLOCK_MONOTONIC):
  /// past it, it throws `Errno.timedOut`. The one-shot commands set it for their answer;
  /// `listen`'s events come when people type.
  var deadline: Instant?

  init(path: String) throws(SystemError) {
    do { connection = try UnixSocket.connect(path: path) } catch {
      throw SystemError("cannot connect to \(path)", error)
    }
    reader = SecretLineReader(fd: connection.fd)
  }

  /// The next line without its newline, valid until the next call (then zeroed); nil at
  /// end of stream. A line longer than the reader's buffer is `EMSGSIZE`.
  func nextLine() throws(Errno) -> UnsafeBufferPointer<UInt8>? {
    while true {
      if let line = reader.completeLine() { return line }
      if let deadline {
        let left = (deadline.nanoseconds - Clock.monotonic().nanoseconds) / 1_000_000
        guard left > 0, try fd.waitReadable(milliseconds: Int32(clamping: left)) else {
          throw .timedOut
        }
      }
      do { try reader.fill() } catch {
        switch error {
        case .closed: return nil
        case .lineTooLong: throw Errno(EMSGSIZE)
        case .failed(let errno): throw errno
        }
      }
    }
  }

  /// Writes `line` (a request: `ClientRequest.line`) and its newline.
  func send(_ line: String) throws(Errno) {
    try fd.writeAll(Array((line + "\n").utf8))
  }
}
