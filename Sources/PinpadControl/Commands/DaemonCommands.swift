import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl listen`, `status`, `verdict` and `open`: one exchange each with the
/// daemon's socket (pinpadctl(1); docs/protocol.md, "Socket"). Every read waits until
/// the global `--timeout` deadline at most, but for `listen`'s events, which come when
/// people type.
enum DaemonCommands {
  /// What to ask the daemon, parsed from the command and its words.
  enum Options: Equatable {
    case listen
    case status
    case verdict(id: String, result: String, message: String?, duress: Bool)
    case open(door: String)

    /// `command` (listen, status, verdict or open) and the words after it; nil for any
    /// other command.
    static func parse(_ command: String, _ arguments: [String]) throws(UsageError) -> Options? {
      switch command {
      case "listen":
        guard arguments.isEmpty else { throw UsageError("listen takes no arguments") }
        return .listen
      case "status":
        guard arguments.isEmpty else { throw UsageError("status takes no arguments") }
        return .status
      case "verdict": return try parseVerdict(arguments)
      case "open":
        guard arguments.count == 1, let door = arguments.first else {
          throw UsageError("open DOOR")
        }
        return .open(door: door)
      default: return nil
      }
    }

    private static func parseVerdict(_ arguments: [String]) throws(UsageError) -> Options {
      var words = Arguments(arguments)
      guard let id = words.next()?.text, let result = words.next()?.text,
        result == "granted" || result == "denied"
      else { throw UsageError("verdict ID granted|denied [--message TEXT] [--duress]") }
      var message: String? = nil
      var duress = false
      while let word = words.next() {
        switch word.name {
        case "--message": message = try words.value(of: word)
        case "--duress":
          try words.flag(word)
          duress = true
        default: throw UsageError("unexpected \(word.text)")
        }
      }
      return .verdict(id: id, result: result, message: message, duress: duress)
    }

    func validate() throws(UsageError) {
      switch self {
      case .verdict(_, let result, _, let duress):
        if duress, result != "granted" { throw UsageError("verdict: --duress goes with granted") }
      case .open(let door):
        guard DoorConfig.isValidName(door) else {
          throw UsageError("open: \(door) is not a door name")
        }
      case .listen, .status: break
      }
    }

    /// The request to send (none for `listen`), written by `ClientRequest.line`.
    var request: ClientRequest? {
      switch self {
      case .listen: return nil
      case .status: return .status
      case .verdict(let id, let result, let message, let duress):
        return .verdict(id: id, granted: result == "granted", message: message, duress: duress)
      case .open(let door): return .open(door: door)
      }
    }
  }

  /// What a line from the daemon means to the command waiting for its answer.
  enum Answer: Equatable {
    /// Not (yet) the answer: keep reading.
    case wait
    /// The answer: print the line (`status`) or nothing, exit 0.
    case done(print: Bool)
    /// The daemon refused: one line, exit 1.
    case refused(String)
  }

  /// How `options` reads `line`, a line the daemon sent, decoded (`DaemonLine`; a line
  /// that is not the protocol's is passed over).
  static func answer(to options: Options, _ line: DaemonLine?) -> Answer {
    switch (options, line) {
    case (_, nil), (.listen, _): return .wait
    // `status` waits for its answer whatever else comes (an error included).
    case (.status, .status?): return .done(print: true)
    case (.status, _): return .wait
    case (.verdict(let id, _, _, _), .verdict(let answered, _, _)?) where answered == id:
      return .done(print: false)
    // The daemon says so when the door unlocked for this request.
    case (.open(let door), .door(let unlocked, "unlocked", "remote")?) where unlocked == door:
      return .done(print: false)
    case (_, .error(let reason)?): return .refused(reason)
    default: return .wait
    }
  }

  static func run(_ options: Options, socketPath: String, deadline: Instant) throws -> Int32 {
    let connection = try connect(socketPath, deadline: deadline)
    guard let request = options.request else { return try listen(connection, socketPath) }
    try connection.send(request.line)
    while let line = try connection.nextLine() {
      switch answer(to: options, try? DaemonLine.decode(line).get()) {
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
