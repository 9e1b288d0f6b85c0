import PinpadControlCore
import PinpadCore
import PinpadSystem

/// What the one-shot commands share (`listen`, `status`, `verdict`, `open`: a file each):
/// the connection to the daemon's socket, and for the three that ask something, one
/// request and the wait for its answer (pinpadctl(1); docs/protocol.md, "Socket"). Every
/// read waits until the global `--timeout` deadline at most, but for `listen`'s events,
/// which come when people type.
enum DaemonExchange {
  /// What a line from the daemon means to the command waiting for its answer.
  enum Answer: Equatable {
    /// Not (yet) the answer: keep reading.
    case wait
    /// The answer: print the line (`status`) or nothing, exit 0.
    case done(print: Bool)
    /// The daemon refused: one line, exit 1.
    case refused(String)
  }

  /// Sends `request` and reads lines until `answer` (given each line decoded:
  /// `DaemonLine`, nil for a line that is not the protocol's) says it came.
  static func run(
    _ request: ClientRequest, socketPath: String, deadline: Instant,
    answer: (DaemonLine?) -> Answer
  ) throws -> Int32 {
    let connection = try connect(socketPath, deadline: deadline)
    try connection.send(request.line)
    while let line = try connection.nextLine() {
      switch answer(try? DaemonLine.decode(line).get()) {
      case .wait: continue
      case .done(let print):
        if print { ControlMain.printLine(String(decoding: line, as: UTF8.self)) }
        return 0
      case .refused(let reason):
        ControlMain.printError("pinpadctl: \(reason)")
        return 1
      }
    }
    throw ControlError("the daemon closed the connection before answering")
  }

  /// Connects and reads the greeting; a refused peer gets the daemon's error. Every
  /// read on the connection waits until `deadline` at most (`Errno.timedOut`).
  static func connect(_ path: String, deadline: Instant) throws -> LineConnection {
    let connection = try LineConnection(path: path)
    connection.deadline = deadline
    guard let hello = try connection.nextLine() else {
      throw SystemError.failure("\(path): the daemon closed the connection")
    }
    switch DaemonLine.decode(hello) {
    case .success(.error(let reason)): throw ControlError("\(path): \(reason)")
    case .success: return connection
    case .failure(let problem): throw ControlError("\(path): \(problem)")
    }
  }
}
