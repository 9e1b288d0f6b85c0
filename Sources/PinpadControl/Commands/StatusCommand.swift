import PinpadControlCore
import PinpadCore
import PinpadProgram

/// `pinpadctl status`: asks the daemon for its status and prints it as it came
/// (pinpadctl(1); docs/protocol.md, "Socket: status").
enum StatusCommand {
  /// The words after `status`: none.
  static func parse(_ arguments: [String]) throws(UsageError) {
    guard arguments.isEmpty else { throw UsageError("status takes no arguments") }
  }

  /// The request, written by `ClientRequest.line`.
  static let request = ClientRequest.status

  /// `status` waits for its answer whatever else comes (an error included).
  static func answer(_ line: DaemonLine?) -> DaemonExchange.Answer {
    if case .status? = line { return .done(print: true) }
    return .wait
  }

  static func run(socketPath: String, deadline: Instant) throws -> Int32 {
    try DaemonExchange.run(request, socketPath: socketPath, deadline: deadline, answer: answer)
  }
}
