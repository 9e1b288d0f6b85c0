import PinpadCore
import PinpadSystem

/// Reads `pinpadd.conf` and its drop-ins `FILE.d/*.conf` (lexical order, later keys
/// win) and parses them. A missing file is an error only when it was named with
/// `--config`; the default path missing means the built-in defaults.
public enum ConfigLoader {
  public static func load(path: String, required: Bool) throws(ConfigError) -> Configuration {
    var sources: [ConfigSource] = []
    if FileSystem.exists(path) || required {
      sources.append(ConfigSource(path: path, text: try readText(path)))
    }
    let dropins = path + ".d"
    for name in FileSystem.list(dropins) where name.hasSuffix(".conf") {
      let file = dropins + "/" + name
      sources.append(ConfigSource(path: file, text: try readText(file)))
    }
    return try ConfigParser.parse(sources, accounts: SystemAccounts())
  }

  private static func readText(_ path: String) throws(ConfigError) -> String {
    do {
      return String(decoding: try FileSystem.read(path, limit: 1 << 20), as: UTF8.self)
    } catch {
      throw ConfigError(path: path, line: 0, message: "cannot read: \(error.detail)")
    }
  }
}

/// The system's users and groups (NSS: /etc/passwd, /etc/group, or what nsswitch.conf
/// names), for `[Socket]` names.
struct SystemAccounts: AccountNames {
  func userExists(_ name: String) -> Bool { Accounts.userID(named: name) != nil }
  func groupExists(_ name: String) -> Bool { Accounts.groupID(named: name) != nil }
}
