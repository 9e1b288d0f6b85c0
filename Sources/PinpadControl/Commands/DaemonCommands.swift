import Glibc
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

    /// The request line to send (none for `listen`).
    var request: JSONValue? {
      switch self {
      case .listen: return nil
      case .status: return .object([("type", .string("status"))])
      case .verdict(let id, let result, let message, let duress):
        var members: [(String, JSONValue)] = [
          ("type", .string("verdict")), ("id", .string(id)), ("result", .string(result)),
        ]
        if let message { members.append(("message", .string(message))) }
        if duress { members.append(("duress", .bool(true))) }
        return .object(members)
      case .open(let door): return .object([("type", .string("open")), ("door", .string(door))])
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

  /// How `options` reads `value`, a line the daemon sent.
  static func answer(to options: Options, _ value: JSONValue?) -> Answer {
    guard let value else { return .wait }
    let type = value["type"]?.stringValue
    switch options {
    case .listen: return .wait
    // `status` waits for its answer whatever else comes (an error included).
    case .status: return type == "status" ? .done(print: true) : .wait
    case .verdict(let id, _, _, _):
      if type == "verdict", value["id"]?.stringValue == id { return .done(print: false) }
    case .open(let door):
      // The daemon says so when the door unlocked for this request.
      if type == "door", value["door"]?.stringValue == door,
        value["event"]?.stringValue == "unlocked", value["by"]?.stringValue == "remote"
      {
        return .done(print: false)
      }
    }
    if type == "error" { return .refused(value["reason"]?.stringValue ?? "error") }
    return .wait
  }

  static func run(_ options: Options, socketPath: String, deadline: Instant) throws -> Int32 {
    let connection = try connect(socketPath, deadline: deadline)
    guard let request = options.request else { return try listen(connection, socketPath) }
    try connection.send(request)
    // `status` reads whatever comes until its answer; the others skip what is not JSON.
    while let line = try connection.readLine() {
      switch answer(to: options, try? JSONValue.parse(line)) {
      case .wait: continue
      case .done(let print):
        if print { ControlMain.printLine(line) }
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
    guard let hello = try connection.readLine() else {
      throw SystemError("\(path): the daemon closed the connection", Errno(0))
    }
    let value = try JSONValue.parse(hello)
    if value["type"]?.stringValue == "error" {
      throw ControlError("\(path): \(value["reason"]?.stringValue ?? "refused")")
    }
    return connection
  }

  /// Prints every line as it comes; code lines pass through one locked buffer
  /// (`SecretLineReader`), zeroed once written, never a String.
  /// Only the greeting is bounded by the deadline: events come when people type.
  static func listen(_ connection: LineConnection, _ path: String) throws -> Int32 {
    let reader = SecretLineReader(fd: connection.fd)
    connection.handOver(to: reader)
    while true {
      let line: UnsafeBufferPointer<UInt8>
      do { line = try reader.nextLine() } catch {
        if case .closed = error { return 0 }
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
