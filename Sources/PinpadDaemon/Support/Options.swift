import PinpadCore
import PinpadProgram

/// `--input SPEC` (pinpadd(8), OPTIONS).
public enum InputSpec: Equatable, Sendable {
  case auto
  case device(path: String)
  case replay(path: String, fast: Bool)
  case terminal

  public init(parsing text: String) throws(UsageError) {
    if text == "auto" {
      self = .auto
    } else if text == "terminal" {
      self = .terminal
    } else if text.hasPrefix("replay:") {
      self = .replay(path: String(text.dropFirst(7)), fast: false)
    } else if text.hasPrefix("replay-fast:") {
      self = .replay(path: String(text.dropFirst(12)), fast: true)
    } else if text.hasPrefix("/") {
      self = .device(path: text)
    } else {
      throw UsageError(
        "--input \(text): expected auto, terminal, a device path, replay:FILE or replay-fast:FILE")
    }
    if case .replay(let path, _) = self, path.isEmpty {
      throw UsageError("--input \(text): the recording's path is missing")
    }
  }
}

/// `--display SPEC` (pinpadd(8), OPTIONS).
public enum DisplaySpec: Equatable, Sendable {
  case auto
  case drm(card: String?)
  case framebuffer(device: String?)
  case console(tty: String?)
  case none
  case snapshot(directory: String)

  public init(parsing text: String) throws(UsageError) {
    func argument(_ prefix: String) -> String? {
      text.count > prefix.count ? String(text.dropFirst(prefix.count)) : nil
    }
    switch text {
    case "auto": self = .auto
    case "none": self = .none
    case "drm": self = .drm(card: nil)
    case "fb": self = .framebuffer(device: nil)
    case "console": self = .console(tty: nil)
    case _ where text.hasPrefix("drm:"): self = .drm(card: argument("drm:"))
    case _ where text.hasPrefix("fb:"): self = .framebuffer(device: argument("fb:"))
    case _ where text.hasPrefix("console:"): self = .console(tty: argument("console:"))
    case _ where text.hasPrefix("snapshot:") && text.count > 9:
      self = .snapshot(directory: String(text.dropFirst(9)))
    default:
      throw UsageError(
        "--display \(text): expected auto, drm[:CARD], fb[:DEVICE], console[:TTY], none or snapshot:DIR"
      )
    }
  }
}

/// The daemon's command line, parsed, before it is checked against the system.
public struct Options: Sendable {
  public enum Mode: Sendable { case run, checkConfig, listDevices, version, help }
  public var mode: Mode = .run
  public var configPath = "/etc/pinpadd/pinpadd.conf"
  /// True when --config was given: then a missing file is an error.
  public var configPathGiven = false
  public var inputs: [InputSpec] = []
  public var display: DisplaySpec? = nil
  public var socketPath: String? = nil
  public var stateDirectory = "/var/lib/pinpadd"
  public var logLevel: LogLevel = .info

  public static let usage = """
    Usage: pinpadd [--config FILE] [--input SPEC]... [--display SPEC] [--socket PATH]
                   [--state-dir DIR] [--log-level error|warning|info|debug]
           pinpadd --check-config [--config FILE]
           pinpadd --list-devices
           pinpadd --version | -V | --help

    A PIN-entry daemon: reads keypads, shows the entry, hands each code to a
    controller on a Unix socket. See pinpadd(8).

      --config FILE     configuration (default /etc/pinpadd/pinpadd.conf, plus FILE.d/*.conf)
      --input SPEC      auto | DEVICE | replay:FILE | replay-fast:FILE | terminal (repeatable)
      --display SPEC    auto | drm[:CARD] | fb[:DEVICE] | console[:TTY] | none | snapshot:DIR
      --socket PATH     controller socket (default from [Socket] Path=)
      --state-dir DIR   lockout state (default /var/lib/pinpadd; none: memory only)
      --log-level LVL   error | warning | info | debug (default info)
    """

  public init() {}

  private static let modes: [String: Mode] = [
    "--check-config": .checkConfig, "--list-devices": .listDevices, "--version": .version,
    "-V": .version, "--help": .help, "-h": .help,
  ]

  /// Parses `arguments` (without the program name). Accepts `--opt value` and `--opt=value`.
  public init(parsing arguments: [String]) throws(UsageError) {
    var words = Arguments(arguments)
    var modes: [Mode] = []
    while let word = words.next() {
      switch word.name {
      case "--config":
        configPath = try words.value(of: word)
        guard !configPath.isEmpty else { throw UsageError("--config needs a file name") }
        configPathGiven = true
      case "--input": inputs.append(try InputSpec(parsing: try words.value(of: word)))
      case "--display": display = try DisplaySpec(parsing: try words.value(of: word))
      case "--socket": socketPath = try words.value(of: word)
      case "--state-dir": stateDirectory = try words.value(of: word)
      case "--log-level":
        let name = try words.value(of: word)
        guard let level = LogLevel(name: name) else {
          throw UsageError("--log-level \(name): expected error, warning, info or debug")
        }
        logLevel = level
      case "--check-config", "--list-devices", "--version", "-V", "--help", "-h":
        try words.flag(word)
        modes.append(Self.modes[word.name]!)
      default:
        throw UsageError("unknown argument \(word.text) (see pinpadd --help)")
      }
    }
    guard modes.count <= 1 else {
      throw UsageError("choose one of --check-config, --list-devices, --version, --help")
    }
    mode = modes.first ?? .run
    if [.checkConfig, .listDevices].contains(mode),
      !inputs.isEmpty || display != nil || socketPath != nil
    {
      throw UsageError("--input, --display and --socket only apply when running the daemon")
    }
    if inputs.count > 1, inputs.contains(.auto) {
      throw UsageError("--input auto cannot be combined with other inputs")
    }
  }
}
