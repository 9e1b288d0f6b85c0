import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl mqtt [--config FILE] [--state-dir DIR]`: the bridge between the daemon and
/// the MQTT broker of `[MQTT]` (pinpadctl(1), mqtt; docs/protocol.md, "MQTT bridge").
///
/// One thread, one `ServiceLoop` (`Bridge.run`) over the broker socket, the daemon socket,
/// a signalfd and a timer. With `Decide=site` the daemon connection exists only while the
/// broker connection does (docs/protocol.md, "MQTT: connection"): when the broker goes,
/// the bridge hangs up on the daemon at once, so the screen says "unavailable" rather
/// than "no response"; both come back when the broker does. With `Decide=local` the
/// bridge decides codes itself and keeps the daemon connection (docs/protocol.md,
/// "Replica: the door"; Bridge+Local.swift).
enum MQTTCommand {
  struct Options: Equatable {
    var config: String? = nil
    var stateDir: String? = nil
    var help = false

    /// The words after `mqtt`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
      var options = Options()
      var words = Arguments(arguments)
      while let word = words.next() {
        switch word.name {
        case "--help", "-h":
          options.help = true
          return options
        case "--config":
          options.config = try words.value(of: word, missing: "--config needs a file")
        case "--state-dir":
          options.stateDir = try words.value(of: word, missing: "--state-dir needs a directory")
        default:
          throw UsageError("mqtt [--config FILE] (unexpected \(word.text))")
        }
      }
      return options
    }

    /// Every combination is valid (the configuration is checked when it is read).
    func validate() throws(UsageError) {}

    /// `--config FILE`, else the daemon's own configuration.
    var configPath: String { config ?? "/etc/pinpadd/pinpadd.conf" }

    /// The bridge's state directory, where a door deciding locally keeps its replica and
    /// its log (pinpadctl(1), mqtt): `--state-dir DIR`, else `$STATE_DIRECTORY`, else
    /// /var/lib/pinpadd-mqtt.
    var stateDirectory: String {
      ControllerStateDirectory.resolve(stateDir, standard: "/var/lib/pinpadd-mqtt")
    }
  }

  static let usage = """
    Usage: pinpadctl [--socket PATH] mqtt [--config FILE] [--state-dir DIR]

    Bridges the daemon at PATH (default /run/pinpadd/pinpadd.sock) to the MQTT broker
    of the [MQTT] section in FILE (default /etc/pinpadd/pinpadd.conf and FILE.d/*.conf):
      TOPIC/status          online | offline (retained; offline is the last will)
      TOPIC/KEYPAD/code     each code message, QoS 1, never retained
      TOPIC/KEYPAD/event    entry, verdict, lockout, keypad and alarm messages
      TOPIC/KEYPAD/state    {"phase":...,"attempts_left":N,"locked_seconds":N} (retained)
      TOPIC/KEYPAD/verdict  subscribed: {"id":"ID","result":"granted|denied","message":"..."}
      TOPIC/door/DOOR/event    door messages; TOPIC/door/DOOR/state {"lock":...,"contact":...}
                            (retained); TOPIC/door/DOOR/command subscribed: open
    and, with Discovery=yes, Home Assistant discovery configs under DiscoveryPrefix.
    With Decide=local it decides codes itself from the site's signed replica
    (TOPIC/replica), kept with its log in DIR (default $STATE_DIRECTORY, else
    /var/lib/pinpadd-mqtt), and sends that log on TOPIC/log until TOPIC/log/ack.
    Exit codes: 78 bad configuration, 69 broker refused the credentials or TLS check.
    """

  /// Runs the bridge of `pinpadctl mqtt` with validated `options` until SIGTERM or
  /// SIGINT, a refusal by the daemon or a fatal broker error.
  static func run(_ options: Options, socketPath: String) throws -> Int32 {
    if options.help {
      ControlMain.printLine(usage)
      return 0
    }
    let configPath = options.configPath
    let configGiven = options.config != nil
    let log = Logger(level: .info)
    guard let (config, settings, password) = MQTTLogin.load(configPath, required: configGiven)
    else { return ExitCode.config.rawValue }
    var mode = Bridge.Mode.site
    if settings.decide == .local {
      do {
        let decider = try DoorDecider(
          settings: settings, stateDirectory: options.stateDirectory,
          lockoutRules: config.lockout, say: { log.log($0.level, $0.text) })
        mode = .local(LocalDoor(decider))
      } catch {
        ControlMain.printError(error.description)
        return error.exitCode.rawValue
      }
    }
    let signals = try SignalReader(blocking: [SIGTERM, SIGINT])
    let bridge = Bridge(
      settings: settings, password: password, socketPath: socketPath,
      maxFailures: config.lockout.maxFailures,
      codeExpirySeconds: Bridge.expirySeconds(config.socket.verdictTimeout),
      keypads: config.keypads.isEmpty ? ["default"] : config.keypads.map(\.name), log: log,
      mode: mode)
    return bridge.run(signals: signals)
  }
}
