import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl serve`: the reference controller (pinpadctl(1); docs/protocol.md, "Codes
/// file").
///
/// `serve` answers every `code` message with `granted` when its code and/or card match a
/// line of the codes file, else `denied` (`Controller`, `DecisionCore`); a duress line's
/// grant carries `"duress":true` and is logged as a warning with the person's name. It
/// re-reads the file when it changes (checked before each code), and when the daemon
/// goes away (restart, upgrade) it reconnects, retrying every second, so a door keeps
/// working across daemon restarts; only a `forbidden` answer, which retrying cannot fix,
/// ends it. The secrets are checked in place in one fixed buffer and zeroed; no code or
/// card number is ever printed. With `--mqtt` it answers a fleet (`FleetController`);
/// with `--sign-key` too it is the site of doors that decide by themselves
/// (`SiteService`: their signed replicas and their logs).
enum ServeCommand {
  static let usage =
    "serve --codes FILE [--key FILE] [--state-dir DIR] [--keep-days N] [--config FILE]"
    + " [--mqtt [--topics FILTER] [--sign-key KEY]]"

  /// `PINPADCTL_GLOBAL_BOUND=DENIALS/SECONDS`: the bound on denials across all keypads
  /// together (pinpadctl(1), ENVIRONMENT), 50/5 when unset.
  static let globalBoundVariable = "PINPADCTL_GLOBAL_BOUND"

  struct Options: Equatable {
    var codes: String? = nil
    var key: String? = nil
    var mqtt = false
    var topics: String? = nil
    /// `--sign-key KEY`: the site's Ed25519 private key; the doors' replicas are signed
    /// with it (`SiteService`).
    var signKey: String? = nil
    var config: String? = nil
    var stateDirectory: String? = nil
    var keepDays = DecisionRecorder.defaultKeepDays
    var globalBound = ControllerLockout.GlobalBound.standard

    /// The words after `serve`, and `PINPADCTL_GLOBAL_BOUND` when set.
    static func parse(_ arguments: [String], globalBound: String? = nil) throws(UsageError)
      -> Options
    {
      var options = Options()
      if let globalBound { options.globalBound = try ServeCommand.globalBound(globalBound) }
      var words = Arguments(arguments)
      while let word = words.next() {
        switch word.name {
        case "--codes": options.codes = try words.value(of: word)
        case "--key": options.key = try words.value(of: word)
        case "--mqtt":
          try words.flag(word)
          options.mqtt = true
        case "--topics": options.topics = try words.value(of: word)
        case "--sign-key": options.signKey = try words.value(of: word)
        case "--config": options.config = try words.value(of: word)
        case "--state-dir": options.stateDirectory = try words.value(of: word)
        case "--keep-days": options.keepDays = try keepDaysValue(try words.value(of: word))
        default:
          throw UsageError("\(usage) (unexpected \(word.text))")
        }
      }
      return options
    }

    func validate() throws(UsageError) {
      if !mqtt, topics != nil { throw UsageError("serve: --topics goes with --mqtt") }
      if !mqtt, signKey != nil { throw UsageError("serve: --sign-key goes with --mqtt") }
      if signKey?.isEmpty == true { throw UsageError("serve: --sign-key needs a key file") }
      guard let codes, !codes.isEmpty else { throw UsageError("serve needs --codes FILE") }
      if stateDirectory?.isEmpty == true {
        throw UsageError("serve: --state-dir needs a directory")
      }
    }

    var configPath: String { config ?? "/etc/pinpadd/pinpadd.conf" }
  }

  static func keepDaysValue(_ text: String) throws(UsageError) -> Int {
    guard let days = Int(text), (1...36500).contains(days) else {
      throw UsageError("--keep-days takes a number of days from 1 to 36500")
    }
    return days
  }

  /// `DENIALS/SECONDS`: at most DENIALS at once, then one every SECONDS.
  static func globalBound(_ text: String) throws(UsageError) -> ControllerLockout.GlobalBound {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let burst = Int(parts[0]), (1...100_000).contains(burst),
      let seconds = Int(parts[1]), (1...86_400).contains(seconds)
    else {
      throw UsageError(
        "\(globalBoundVariable) takes DENIALS/SECONDS (1 to 100000 / 1 to 86400), not \(text)")
    }
    return .init(burst: burst, interval: .seconds(seconds))
  }

  /// `serve`'s lines on stderr: `pinpadctl serve: `, then `warning: ` or `error: ` by level.
  static func say(_ line: LogLine) { ControlMain.printError("pinpadctl serve: " + line.plain) }

  /// Runs `serve` with validated `options` until a `forbidden` answer or a fatal error.
  static func run(_ options: Options, socketPath: String) throws -> Int32 {
    let path = options.codes ?? ""
    // The signing key first: a site that cannot sign says so before anything else.
    var signKey: Ed25519SigningKey? = nil
    if let keyPath = options.signKey {
      do { signKey = try Ed25519SigningKey(path: keyPath) } catch {
        throw CodesFileRefused(description: "--sign-key \(error.description)")
      }
    }
    // The key beside the codes file (`hash` makes it, pinpadctl(1), SCALE) is used when
    // present.
    var keyPath = options.key
    let besideKey = TagKeyFile.besideCodes(path)
    if keyPath == nil, FileSystem.exists(besideKey) { keyPath = besideKey }
    var key: CodeTagKey? = nil
    if let keyPath {
      do { key = try TagKeyFile.load(keyPath) } catch {
        throw CodesFileRefused(description: error.description)
      }
    }
    var codes = WatchedCodesFile(path: path)
    let verifier = CodeVerifier(key: key)
    let problems = codes.reloadIfChanged() ?? []
    if let refusal = codes.refusal { throw CodesFileRefused(description: refusal) }
    for problem in problems { ControlMain.printError(problem) }
    guard FileSystem.exists(path) else {
      throw ControlError("\(path): cannot read the codes file")
    }
    if codes.entries.isEmpty {
      ControlMain.printError("pinpadctl serve: \(path) holds no usable line; every code is denied")
    }
    Controller.warnAboutUntaggedLines(codes, verifier, say: Self.say)
    let directory = ControllerStateDirectory.resolve(options.stateDirectory)
    if options.mqtt {
      let fleet = FleetController.Options(
        filter: options.topics ?? FleetController.defaultFilter, configPath: options.configPath,
        configRequired: options.config != nil, tagKeyPath: options.key ?? besideKey,
        globalBound: options.globalBound, keepDays: options.keepDays)
      return try FleetController.run(
        fleet, codes: codes, verifier: verifier, stateDirectory: directory, signKey: signKey)
    }
    // [Lockout] of the daemon's configuration: the controller's lockout follows it.
    var rules = LockoutConfig()
    do {
      rules = try ConfigLoader.load(path: options.configPath, required: options.config != nil)
        .lockout
    } catch {
      ControlMain.printError(error.description)
      if options.config != nil { return ExitCode.config.rawValue }
    }
    let controller = try Controller.open(
      codes: codes, verifier: verifier, directory: directory, lockoutFile: "lockout",
      rules: rules, globalBound: options.globalBound, keepDays: options.keepDays, say: Self.say)
    return try serve(controller, socketPath: socketPath)
  }

  /// One thread, one `ServiceLoop`: the daemon's link (`DaemonConnection`, the bridge's:
  /// non-blocking, verdicts queued as the socket takes them, retried every second while
  /// the daemon is away) and the timer of its next retry.
  static func serve(_ controller: Controller, socketPath: String) throws -> Int32 {
    let daemon = DaemonConnection(path: socketPath)
    let loop: ServiceLoop
    do { loop = try ServiceLoop() } catch { throw SystemError("epoll", error) }
    func say(_ text: String) { ControlMain.printError("pinpadctl serve: " + text) }
    try loop.run(
      afterEach: {
        loop.serveDaemon(daemon) {
          daemon.read(now: Clock.monotonic()) { event in
            handle(event, daemon: daemon, controller: controller, say: say)
          }
        }
        return daemon.state.refusal == nil
      },
      turn: { () throws(Errno) -> ServiceLoop.Next in
        // Connect when due, then what to watch and when to wake next.
        let now = Clock.monotonic()
        if let warning = daemon.connectIfDue(now: now) { say(warning) }
        if let warning = daemon.report(now: now) { say(warning) }
        try loop.sync(daemon: daemon)
        // Connected and nothing to report: nothing is due but what the socket brings.
        return .wake(at: max(now, daemon.nextDeadline ?? now + .seconds(3600)))
      })
    throw ControlError("\(socketPath): \(daemon.state.refusal ?? "refused")")
  }

  /// What `serve` does with what its link read: codes answered, the daemon's errors
  /// said, the rest (events for other clients) passed over.
  static func handle(
    _ event: DaemonConnection.Event, daemon: DaemonConnection, controller: Controller,
    say: (String) -> Void
  ) {
    switch event {
    case .greeted: say("connected to \(daemon.path)")
    case .lost: say("disconnected from \(daemon.path); reconnecting")
    case .line(.code(let code), let line):
      let (verdict, logged) = answer(code, in: line, controller)
      if let warning = daemon.send(verdict, now: Clock.monotonic()) { say(warning) }
      for line in logged { say(line.plain) }
    case .line(.error(let reason), _): say("the daemon says: \(reason)")
    // A refusal ends `serve` (its caller sees `state.refusal`); a line that is not the
    // protocol's (a code line's digits zeroed with the reader's buffer) and other
    // clients' events are passed over.
    case .refused, .malformed, .line: break
    }
  }

  /// The verdict line for a code line `code` (decoded from `line`, whose digits the
  /// decision zeroes) and the lines to log about it.
  static func answer(
    _ code: CodeLine, in line: UnsafeMutableBufferPointer<UInt8>, _ controller: Controller
  ) -> (verdict: String, log: [LogLine]) {
    let attempt = Attempt(code, in: line)
    let decision = controller.answer(attempt)
    return (
      decision.verdict(id: code.id).line,
      decision.logLines(id: attempt.id, place: "keypad \(attempt.keypad)")
    )
  }
}

/// `serve` will not start on a codes file others may read or write: exit 78.
struct CodesFileRefused: Error, CustomStringConvertible {
  var description: String
}
