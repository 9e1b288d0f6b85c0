import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl`: a small client for pinpadd's socket (pinpadctl(1)).
public enum ControlMain {
  public static let usage = """
    Usage: pinpadctl [--socket PATH] listen
           pinpadctl [--socket PATH] [--timeout SEC] status
           pinpadctl [--socket PATH] [--timeout SEC] verdict ID granted|denied
                     [--message TEXT] [--duress]
           pinpadctl [--socket PATH] [--timeout SEC] open DOOR
           pinpadctl [--socket PATH] serve --codes FILE [--key FILE] [--state-dir DIR]
                     [--keep-days N] [--config FILE]
           pinpadctl serve --codes FILE [--key FILE] [--state-dir DIR] [--keep-days N]
                     --mqtt [--topics FILTER] [--config FILE]
           pinpadctl [--socket PATH] mqtt [--config FILE]
           pinpadctl hash NAME [--card] [--duress] [--codes FILE] [--key FILE] [--config FILE]
                     [--from DATE] [--until DATE] [--hours WINDOWS] [--uses N]
                     [--doors NAMES] [--disabled]
           pinpadctl log [--since TIME] [--until TIME] [--person NAME] [--door NAME]
                     [--json] [--keep-days N] [--state-dir DIR]
           pinpadctl --version | -V | --help

      listen    print each event from the daemon as one JSON line
      status    print the daemon's status as JSON
      verdict   answer attempt ID
      open      unlock the [Door DOOR] for its OpenSec
      serve     a reference controller: grant codes and cards whose crypt(3) hashes are
                in FILE (FILE.key or --key: the key of its tag= options); its own lockout
                per keypad is kept in --state-dir; with --mqtt it answers every device
                on the broker of [MQTT] in the config
      mqtt      bridge the daemon to the MQTT broker of [MQTT] (pinpadctl mqtt --help)
      hash      read a PIN (--card: and a card number) from the terminal (no echo),
                print the line for the codes file (--codes, default /etc/pinpadd/codes;
                tagged with FILE.key, made on first use; --duress: a duress code; --from,
                --until, --hours, --uses, --doors, --disabled: the line's rules)
      log       print the decisions serve took (its access log in --state-dir)

    status, verdict and open give up when pinpadd has not answered within --timeout
    seconds (default 5, or $PINPADCTL_TIMEOUT): one line on standard error, exit 69.
    """

  /// How long `status`, `verdict` and `open` wait for the daemon's answer by default.
  static let defaultTimeoutSeconds = 5.0

  public static func run(arguments: [String]) -> Int32 {
    ControllerService.unblockSignals()
    SignalReader.ignoreBrokenPipes()
    // `serve` holds codes while it checks them: no core dumps, no crash reports.
    ProcessSetup.forbidDumps()
    // The buffers that hold codes and cards are locked in memory where allowed, as
    // the daemon's are (pinpadd(8), DESCRIPTION), and zeroed after use.
    SecretDigits.lockPages = { ProcessSetup.lockPages($0, $1) }
    var words = Arguments(arguments)
    var socketPath = "/run/pinpadd/pinpadd.sock"
    var timeout = defaultTimeoutSeconds
    // PINPADCTL_TIMEOUT: the default of --timeout, for scripts on slow machines.
    if let text = ProcessSetup.environment("PINPADCTL_TIMEOUT") {
      guard let seconds = timeoutSeconds(text) else {
        return usageError("PINPADCTL_TIMEOUT takes seconds from 0 to 3600, not \(text)")
      }
      timeout = seconds
    }
    // Options before the command apply to every command; each command reads its own.
    while let word = words.peek, word.name == "--socket" || word.name == "--timeout" {
      _ = words.next()
      do {
        if word.name == "--socket" {
          socketPath = try words.value(of: word, missing: "--socket needs a path")
        } else {
          let text = try words.value(of: word, missing: "--timeout needs seconds")
          guard let seconds = timeoutSeconds(text) else {
            return usageError("--timeout takes seconds from 0 to 3600, not \(text)")
          }
          timeout = seconds
        }
      } catch {
        return usageError(error.description)
      }
    }
    // The one-shot commands' bound on the whole exchange: greeting and answer.
    let deadline = Clock.monotonic().adding(nanoseconds: Int64(timeout * 1e9))
    guard let command = words.next()?.text else { return usageError("a command is needed") }
    let rest = words.remaining
    do {
      switch command {
      case "listen":
        guard rest.isEmpty else { return usageError("listen takes no arguments") }
        return try listen(socketPath, deadline: deadline)
      case "status":
        guard rest.isEmpty else { return usageError("status takes no arguments") }
        return try status(socketPath, deadline: deadline)
      case "verdict":
        return try verdict(socketPath, Array(rest), deadline: deadline)
      case "open":
        guard rest.count == 1, let door = rest.first else {
          return usageError("open DOOR")
        }
        return try open(socketPath, door: door, deadline: deadline)
      case "serve":
        return try ControllerService.main(socketPath: socketPath, arguments: Array(rest))
      case "hash":
        return try ControllerService.hashMain(arguments: Array(rest))
      case "log":
        return try ControllerService.logMain(arguments: Array(rest))
      case "mqtt":
        return try BridgeService.main(socketPath: socketPath, arguments: Array(rest))
      case "--help", "-h", "help":
        print(usage)
        return 0
      case "--version", "-V":
        guard rest.isEmpty else { return usageError("\(command) takes no arguments") }
        printLine("pinpadctl \(pinpaddVersion)")
        return 0
      default:
        return usageError("unknown command \(command)")
      }
    } catch let error as Errno where error == .timedOut {
      printError("pinpadctl: \(socketPath): pinpadd did not answer within \(timeout) s")
      return ExitCode.unavailable.rawValue
    } catch let error as UsageError {
      return usageError(error.description)
    } catch let error as CodesFileRefused {
      printError("pinpadctl serve: \(error)")
      return ExitCode.config.rawValue
    } catch {
      printError("pinpadctl: \(error)")
      return ExitCode.unavailable.rawValue
    }
  }

  /// A --timeout value: seconds above 0, up to an hour.
  static func timeoutSeconds(_ text: String) -> Double? {
    guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { return nil }
    return seconds
  }

  static func usageError(_ text: String) -> Int32 {
    printError("pinpadctl: \(text)\n\(usage)")
    return ExitCode.usage.rawValue
  }

  static func printError(_ line: String) {
    try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
  }

  static func printLine(_ line: String) {
    try? FileDescriptor.standardOutput.writeAll(Array((line + "\n").utf8))
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
  /// Only the greeting is bounded by `deadline`: events come when people type.
  static func listen(_ path: String, deadline: Instant) throws -> Int32 {
    let connection = try connect(path, deadline: deadline)
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

  static func status(_ path: String, deadline: Instant) throws -> Int32 {
    let connection = try connect(path, deadline: deadline)
    try connection.send(.object([("type", .string("status"))]))
    while let line = try connection.readLine() {
      if (try? JSONValue.parse(line))?["type"]?.stringValue == "status" {
        printLine(line)
        return 0
      }
    }
    throw ControlError("the daemon closed the connection before answering")
  }

  static func verdict(_ path: String, _ arguments: [String], deadline: Instant) throws -> Int32 {
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
    if duress, result != "granted" { throw UsageError("verdict: --duress goes with granted") }
    let connection = try connect(path, deadline: deadline)
    var members: [(String, JSONValue)] = [
      ("type", .string("verdict")), ("id", .string(id)), ("result", .string(result)),
    ]
    if let message { members.append(("message", .string(message))) }
    if duress { members.append(("duress", .bool(true))) }
    try connection.send(.object(members))
    // The daemon broadcasts the verdict when it takes it, or answers with an error.
    while let line = try connection.readLine() {
      guard let value = try? JSONValue.parse(line) else { continue }
      switch value["type"]?.stringValue {
      case "verdict" where value["id"]?.stringValue == id: return 0
      case "error":
        printError("pinpadctl: \(value["reason"]?.stringValue ?? "error")")
        return 1
      default: continue
      }
    }
    throw ControlError("the daemon closed the connection before answering")
  }
}

struct ControlError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension ControlMain {
  /// `open DOOR`: asks the daemon to unlock a door; 0 once it says the door unlocked.
  static func open(_ path: String, door: String, deadline: Instant) throws -> Int32 {
    guard DoorConfig.isValidName(door) else { throw UsageError("open: \(door) is not a door name") }
    let connection = try connect(path, deadline: deadline)
    try connection.send(.object([("type", .string("open")), ("door", .string(door))]))
    while let line = try connection.readLine() {
      guard let value = try? JSONValue.parse(line) else { continue }
      switch value["type"]?.stringValue {
      case "door"
      where value["door"]?.stringValue == door && value["event"]?.stringValue == "unlocked"
        && value["by"]?.stringValue == "remote":
        return 0
      case "error":
        printError("pinpadctl: \(value["reason"]?.stringValue ?? "error")")
        return 1
      default: continue
      }
    }
    throw ControlError("the daemon closed the connection before answering")
  }
}
