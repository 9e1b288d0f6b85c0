import Glibc
import PinpadCore
import PinpadProgram

/// `pinpadctl listen`: prints every line the daemon sends as it comes (pinpadctl(1)).
enum ListenCommand {
  /// The words after `listen`: none.
  static func parse(_ arguments: [String]) throws(UsageError) {
    guard arguments.isEmpty else { throw UsageError("listen takes no arguments") }
  }

  static func run(socketPath: String, deadline: Instant) throws -> Int32 {
    try listen(DaemonExchange.connect(socketPath, deadline: deadline), socketPath)
  }

  /// Prints every line as it comes; code lines pass through one locked buffer
  /// (`SecretLineReader`), zeroed once written, never a String.
  /// Only the greeting is bounded by the deadline: events come when people type.
  static func listen(_ connection: LineConnection, _ path: String) throws -> Int32 {
    connection.deadline = nil
    while true {
      let line: UnsafeBufferPointer<UInt8>
      do {
        guard let next = try connection.nextLine() else { return 0 }
        line = next
      } catch {
        throw ControlError("\(path): \(error)")
      }
      // The line and its newline are contiguous in the reader's buffer.
      let whole = UnsafeBufferPointer(start: line.baseAddress, count: line.count + 1)
      var done = 0
      while done < whole.count {
        let n = Glibc.write(1, whole.baseAddress! + done, whole.count - done)
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return 1 }
        done += n
      }
    }
  }
}
