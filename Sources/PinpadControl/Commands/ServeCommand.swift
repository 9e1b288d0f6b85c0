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
/// card number is ever printed. With `--mqtt` it answers a fleet (`FleetController`).
enum ServeCommand {
  static let retryInterval: Duration = .seconds(1)

  static let usage =
    "serve --codes FILE [--key FILE] [--state-dir DIR] [--keep-days N] [--config FILE]"
    + " [--mqtt [--topics FILTER]]"

  /// `PINPADCTL_GLOBAL_BOUND=DENIALS/SECONDS`: the bound on denials across all keypads
  /// together (pinpadctl(1), ENVIRONMENT), 50/5 when unset.
  static let globalBoundVariable = "PINPADCTL_GLOBAL_BOUND"

  struct Options: Equatable {
    var codes: String? = nil
    var key: String? = nil
    var mqtt = false
    var topics: String? = nil
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

  /// Runs `serve` with validated `options` until a `forbidden` answer or a fatal error.
  static func run(_ options: Options, socketPath: String) throws -> Int32 {
    let path = options.codes ?? ""
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
    Controller.warnAboutUntaggedLines(codes, verifier)
    let directory = ControllerStateDirectory.resolve(options.stateDirectory)
    if options.mqtt {
      return try FleetController.run(
        options, codes: codes, verifier: verifier, stateDirectory: directory)
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
      rules: rules, options: options
    ) { ControlMain.printError("pinpadctl serve: " + $0) }
    return try serve(controller, socketPath: socketPath)
  }

  /// One thread, one EventLoop: the daemon's connection while there is one, else the
  /// timer that retries every second.
  static func serve(_ controller: Controller, socketPath: String) throws -> Int32 {
    let loop = try EventLoop()
    let retry = try Timer()
    var connection: OpenDescriptor? = nil
    var greeted = false
    var said = false
    var refusal: String? = nil
    func connect() {
      let open: OpenDescriptor
      do { open = OpenDescriptor(try UnixSocket.connect(path: socketPath)) } catch {
        if !said {
          ControlMain.printError(
            "pinpadctl serve: cannot connect to \(socketPath): \(error); retrying every second")
          said = true
        }
        retry.arm(at: Clock.monotonic() + retryInterval)
        return
      }
      said = false
      greeted = false
      connection = open
      let fd = open.descriptor
      let lines = SecretLineReader(fd: fd)
      do {
        try loop.watch(fd, .readable) { _ in
          let end = serveLines(
            lines, greeted: &greeted, controller: controller, socketPath: socketPath)
          guard let end else { return }
          loop.unwatch(fd)
          open.close()
          connection = nil
          if case .refused(let why) = end {
            refusal = why
            loop.stop()
            return
          }
          ControlMain.printError("pinpadctl serve: disconnected from \(socketPath); reconnecting")
          retry.arm(at: Clock.monotonic() + retryInterval)
        }
      } catch {
        open.close()
        connection = nil
        ControlMain.printError("pinpadctl serve: epoll: \(error); retrying every second")
        retry.arm(at: Clock.monotonic() + retryInterval)
      }
    }
    try loop.watch(retry.fd, .readable) { _ in
      retry.acknowledge()
      if connection == nil { connect() }
    }
    connect()
    try loop.run()
    throw ControlError("\(socketPath): \(refusal ?? "refused")")
  }

  enum EndOfService {
    case lost
    case refused(String)
  }

  /// One connection's lines, once its descriptor is readable: one read, then every
  /// complete line (the greeting, then codes answered); nil while the connection lasts.
  static func serveLines(
    _ reader: SecretLineReader, greeted: inout Bool, controller: Controller, socketPath: String
  ) -> EndOfService? {
    do { try reader.fill() } catch {
      return .lost
    }
    while let line = reader.completeLine() {
      guard let fields = JSONFields(line) else { continue }
      let type = fields.text("type", in: line)
      if !greeted {
        if type == "error" {
          return .refused(fields.text("reason", in: line) ?? "refused")
        }
        greeted = true
        ControlMain.printError("pinpadctl serve: connected to \(socketPath)")
        continue
      }
      switch type {
      case "code":
        guard let id = fields.text("id", in: line) else {
          Controller.zeroSecrets(fields, line)
          continue
        }
        let keypad = UntrustedText.sanitized(fields.text("keypad", in: line) ?? "?", maxBytes: 64)
        let decision = controller.answer(
          Controller.attempt(
            fields, line, id: UntrustedText.sanitized(id, maxBytes: 128), device: nil,
            keypad: keypad, place: keypad))
        let answer = JSONValue.object(
          [("type", .string("verdict"))] + decision.verdictMembers(id: id))
        do { try reader.fd.writeAll(Array((answer.serialized + "\n").utf8)) } catch {
          return .lost
        }
        let shownId = UntrustedText.sanitized(id, maxBytes: 64)
        for text in decision.logLines(id: shownId, place: "keypad \(keypad)") {
          ControlMain.printError("pinpadctl serve: " + text)
        }
      case "error":
        ControlMain.printError(
          "pinpadctl serve: the daemon says: \(fields.text("reason", in: line) ?? "error")")
      default:
        continue
      }
    }
    return nil
  }
}

/// `serve` will not start on a codes file others may read or write: exit 78.
struct CodesFileRefused: Error, CustomStringConvertible {
  var description: String
}
