import PinpadCore
import PinpadSystem

/// A blocking client connection to pinpadd's socket, read line by line (pinpadctl).
public final class LineConnection {
  private let connection: OwnedDescriptor
  public var fd: FileDescriptor { connection.fd }
  private var buffer: [UInt8] = []
  /// When set, `readLine` waits for the daemon no longer than this (CLOCK_MONOTONIC):
  /// past it, it throws `Errno.timedOut`. The one-shot commands set it; `serve` and the
  /// bridge wait for as long as the daemon runs.
  public var deadline: Instant?

  public init(path: String) throws(SystemError) {
    do { connection = try UnixSocket.connect(path: path) } catch {
      throw SystemError("cannot connect to \(path)", error)
    }
  }

  /// The next line without its newline; nil at end of stream.
  public func readLine() throws(Errno) -> String? {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      if let deadline {
        let left = (deadline.nanoseconds - Clock.monotonic().nanoseconds) / 1_000_000
        guard left > 0, try fd.waitReadable(milliseconds: Int32(clamping: left)) else {
          throw .timedOut
        }
      }
      let n = try fd.read(into: &chunk)
      if n == 0 { return nil }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }

  /// Hands what was read past the last line to `reader` and zeroes it here.
  func handOver(to reader: SecretLineReader) {
    reader.prefill(buffer)
    for i in buffer.indices { buffer[i] = 0 }
    buffer.removeAll()
  }

  public func send(_ value: JSONValue) throws(Errno) {
    try fd.writeAll(Array((value.serialized + "\n").utf8))
  }
}
