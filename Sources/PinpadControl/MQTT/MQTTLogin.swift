import PinpadCore
import PinpadProgram

/// What the bridge and the fleet controller both read before they connect: the
/// configuration, its checked `[MQTT]` section (pinpadd.conf(5), [MQTT]) and the
/// broker password of `PasswordFile=`.
enum MQTTLogin {
  /// The configuration, the checked `[MQTT]` section and the password; nil after
  /// printing the one line that says why not.
  static func load(_ path: String, required: Bool) -> (
    Configuration, MQTTSettings, SecretPassword?
  )? {
    let config: Configuration
    let settings: MQTTSettings
    do {
      config = try ConfigLoader.load(path: path, required: required)
      guard config.mqtt.isPresent else {
        ControlMain.printError("\(path): no [MQTT] section (Broker= is required)")
        return nil
      }
      settings = try config.mqtt.validated(hostName: HostName.current)
    } catch {
      ControlMain.printError(error.description)
      return nil
    }
    var password: SecretPassword? = nil
    if !settings.passwordFile.isEmpty {
      do { password = try SecretPassword(path: settings.passwordFile) } catch {
        let place = settings.passwordFilePlace ?? ConfigPlace(path: path, line: 0)
        ControlMain.printError(
          "\(place.path):\(place.line): PasswordFile=\(settings.passwordFile): \(error)")
        return nil
      }
    }
    return (config, settings, password)
  }
}
