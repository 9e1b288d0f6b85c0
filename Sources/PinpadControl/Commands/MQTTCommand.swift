import PinpadProgram

/// `pinpadctl mqtt [--config FILE] [--state-dir DIR]`: the bridge between the daemon and the MQTT broker
/// of `[MQTT]` (pinpadctl(1); `BridgeService`).
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

  static func run(_ options: Options, socketPath: String) throws -> Int32 {
    try BridgeService.run(options, socketPath: socketPath)
  }
}
