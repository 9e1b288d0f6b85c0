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
                     --mqtt [--topics FILTER] [--sign-key KEY] [--config FILE]
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

  /// The options before the command, which apply to every command, and the command
  /// with its words (each command reads its own).
  struct Options: Equatable {
    var socketPath = "/run/pinpadd/pinpadd.sock"
    var timeout = ControlMain.defaultTimeoutSeconds
    var command: String? = nil
    var arguments: [String] = []

    /// `PINPADCTL_TIMEOUT` (`timeoutVariable`): the default of --timeout, for scripts on
    /// slow machines.
    static func parse(_ arguments: [String], timeoutVariable: String? = nil) throws(UsageError)
      -> Options
    {
      var options = Options()
      if let text = timeoutVariable {
        guard let seconds = timeoutSeconds(text) else {
          throw UsageError("PINPADCTL_TIMEOUT takes seconds from 0 to 3600, not \(text)")
        }
        options.timeout = seconds
      }
      var words = Arguments(arguments)
      while let word = words.peek, word.name == "--socket" || word.name == "--timeout" {
        _ = words.next()
        if word.name == "--socket" {
          options.socketPath = try words.value(of: word, missing: "--socket needs a path")
        } else {
          let text = try words.value(of: word, missing: "--timeout needs seconds")
          guard let seconds = timeoutSeconds(text) else {
            throw UsageError("--timeout takes seconds from 0 to 3600, not \(text)")
          }
          options.timeout = seconds
        }
      }
      options.command = words.next()?.text
      options.arguments = words.remaining
      return options
    }

    func validate() throws(UsageError) {
      guard command != nil else { throw UsageError("a command is needed") }
    }
  }

  public static func run(arguments: [String]) -> Int32 {
    unblockSignals()
    SignalReader.ignoreBrokenPipes()
    // `serve` holds codes while it checks them: no core dumps, no crash reports.
    ProcessSetup.forbidDumps()
    // The buffers that hold codes and cards are locked in memory where allowed, as
    // the daemon's are (pinpadd(8), DESCRIPTION), and zeroed after use.
    SecretDigits.lockPages = { ProcessSetup.lockPages($0, $1) }
    let options: Options
    do {
      options = try Options.parse(
        arguments, timeoutVariable: ProcessSetup.environment("PINPADCTL_TIMEOUT"))
      try options.validate()
    } catch {
      return usageError(error.description)
    }
    // The one-shot commands' bound on the whole exchange: greeting and answer.
    let deadline = Clock.monotonic().adding(nanoseconds: Int64(options.timeout * 1e9))
    let socketPath = options.socketPath
    let command = options.command ?? ""
    let rest = options.arguments
    do {
      switch command {
      case "listen":
        try ListenCommand.parse(rest)
        return try ListenCommand.run(socketPath: socketPath, deadline: deadline)
      case "status":
        try StatusCommand.parse(rest)
        return try StatusCommand.run(socketPath: socketPath, deadline: deadline)
      case "verdict":
        let verdict = try VerdictCommand.Options.parse(rest)
        try verdict.validate()
        return try VerdictCommand.run(verdict, socketPath: socketPath, deadline: deadline)
      case "open":
        let open = try OpenCommand.Options.parse(rest)
        try open.validate()
        return try OpenCommand.run(open, socketPath: socketPath, deadline: deadline)
      case "serve":
        let serve = try ServeCommand.Options.parse(
          rest, globalBound: ProcessSetup.environment(ServeCommand.globalBoundVariable))
        try serve.validate()
        return try ServeCommand.run(serve, socketPath: socketPath)
      case "hash":
        let hash = try HashCommand.Options.parse(rest)
        try hash.validate()
        return HashCommand.run(hash)
      case "log":
        let now = Clock.wallNanoseconds() / 1_000_000
        let log = try LogCommand.Options.parse(rest, now: now, zone: .system)
        try log.validate()
        return try LogCommand.run(log, now: now)
      case "mqtt":
        let mqtt = try MQTTCommand.Options.parse(rest)
        try mqtt.validate()
        return try MQTTCommand.run(mqtt, socketPath: socketPath)
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
      printError("pinpadctl: \(socketPath): pinpadd did not answer within \(options.timeout) s")
      return ExitCode.unavailable.rawValue
    } catch let error as UsageError {
      return usageError(error.description)
    } catch let error as BareUsageError {
      printError(error.description)
      return ExitCode.usage.rawValue
    } catch let error as ControlError {
      printError("pinpadctl: \(error)")
      return error.exitCode.rawValue
    } catch let error as CodesFileRefused {
      printError("pinpadctl serve: \(error)")
      return ExitCode.config.rawValue
    } catch {
      printError("pinpadctl: \(error)")
      return ExitCode.unavailable.rawValue
    }
  }

  /// Unblocks every signal. A client started from a thread that blocks signals (a
  /// test runner, a thread pool) inherits that mask and would otherwise ignore SIGTERM.
  static func unblockSignals() {
    var none = sigset_t()
    sigemptyset(&none)
    _ = sigprocmask(SIG_SETMASK, &none, nil)
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
}

struct ControlError: Error, CustomStringConvertible {
  var description: String
  /// What the program exits with when this ends it: a resource unavailable (69) unless
  /// the error is the configuration's (78).
  var exitCode: ExitCode
  init(_ description: String, exitCode: ExitCode = .unavailable) {
    self.description = description
    self.exitCode = exitCode
  }
}

/// A usage error that is one line of its own (no usage text after it): exit 64.
struct BareUsageError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
