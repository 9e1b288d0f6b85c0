/// The `[MQTT]` section (pinpadd.conf(5), [MQTT]): read by `pinpadctl mqtt` and
/// `serve --mqtt`.
///
/// The daemon accepts and ignores it, so the parser keeps the values as written (with
/// where each was set) and `validated(hostName:)` checks them: `pinpadd --check-config`
/// and the bridge call it, the daemon never does, so a bad broker URL cannot stop a door.
public struct MQTTConfig: Equatable, Sendable {
  public static let keys = [
    "Broker", "Username", "PasswordFile", "CAFile", "CertFile", "KeyFile", "AllowInsecure",
    "ClientID", "Topic", "Discovery", "DiscoveryPrefix", "Decide", "SiteKey",
    "MaxReplicaAgeSec",
  ]
  public static let defaults: [String: String] = [
    "AllowInsecure": "no", "Topic": "pinpadd/%H", "Discovery": "yes",
    "DiscoveryPrefix": "homeassistant", "Decide": "site", "MaxReplicaAgeSec": "604800",
  ]

  /// Values as written, by key; keys never written are absent.
  public var values: [String: String] = [:]
  /// Where each key was last set.
  public var places: [String: ConfigPlace] = [:]
  /// The last `[MQTT]` header read; nil when no file has the section.
  public var section: ConfigPlace? = nil
  public init() {}

  public var isPresent: Bool { section != nil }

  /// The value of `key`, or its default. `ClientID` left unset or empty is `Topic=` with
  /// each `/` made `-` (`clientID(forTopic:)`), `%H` still in it: `pinpadd-%H` by default,
  /// as `pinpadd --check-config` prints it.
  public func value(_ key: String) -> String {
    if key == "ClientID", values[key]?.isEmpty != false {
      return MQTTConfig.clientID(forTopic: value("Topic"))
    }
    return values[key] ?? MQTTConfig.defaults[key] ?? ""
  }

  /// The checked settings, `%H` replaced by `hostName`. The error names the file and
  /// line of the key at fault (of the `[MQTT]` header for a missing Broker).
  public func validated(hostName: String) throws(ConfigError) -> MQTTSettings {
    func fail(_ key: String, _ message: String) -> ConfigError {
      let place = places[key] ?? section ?? ConfigPlace(path: "(defaults)", line: 0)
      return ConfigError(path: place.path, line: place.line, message: message)
    }
    let brokerText = value("Broker")
    guard !brokerText.isEmpty else {
      throw fail("Broker", "[MQTT] Broker= is required (mqtt://HOST[:PORT] or mqtts://HOST[:PORT])")
    }
    let broker: BrokerURL
    do { broker = try BrokerURL(parsing: brokerText) } catch { throw fail("Broker", error.message) }
    let allowInsecure: Bool
    let discovery: Bool
    do {
      allowInsecure = try ConfigValue.boolean("AllowInsecure", value("AllowInsecure"))
    } catch { throw fail("AllowInsecure", error.message) }
    do { discovery = try ConfigValue.boolean("Discovery", value("Discovery")) } catch {
      throw fail("Discovery", error.message)
    }
    if !broker.tls, !broker.isLoopback, !allowInsecure {
      throw fail(
        "Broker",
        "Broker=\(brokerText): plain mqtt:// to \(broker.host) would send codes and passwords "
          + "unencrypted; use mqtts:// or set AllowInsecure=yes")
    }
    for key in ["CAFile", "CertFile", "KeyFile"] where !broker.tls && !value(key).isEmpty {
      throw fail(key, "\(key)= needs an mqtts:// broker")
    }
    if value("CertFile").isEmpty != value("KeyFile").isEmpty {
      let missing = value("CertFile").isEmpty ? "CertFile" : "KeyFile"
      let given = missing == "CertFile" ? "KeyFile" : "CertFile"
      throw fail(given, "\(given)= needs \(missing)= too (a client certificate and its key)")
    }
    for key in ["PasswordFile", "CAFile", "CertFile", "KeyFile"] {
      let path = value(key)
      if !path.isEmpty, !path.hasPrefix("/") {
        throw fail(key, "\(key)=\(path) must be an absolute path")
      }
    }
    if !value("PasswordFile").isEmpty, value("Username").isEmpty {
      throw fail("PasswordFile", "PasswordFile= needs Username=")
    }
    let topic = value("Topic").replacingHost(hostName)
    if let problem = MQTTTopic.problemAsPrefix(topic) {
      throw fail("Topic", "Topic=\(value("Topic")): \(problem)")
    }
    let prefix = value("DiscoveryPrefix")
    if let problem = MQTTTopic.problemAsPrefix(prefix) {
      throw fail("DiscoveryPrefix", "DiscoveryPrefix=\(prefix): \(problem)")
    }
    // No ClientID=: from the device's topic, which is unique per device anyway, so two
    // bridges on one host (two daemons, a test rig) do not take each other's session.
    let written = values["ClientID"].map { $0.replacingHost(hostName) }
    let clientID = written.flatMap { $0.isEmpty ? nil : $0 } ?? MQTTConfig.clientID(forTopic: topic)
    guard !clientID.isEmpty, clientID.utf8.count <= 128,
      !clientID.contains(where: { $0.isWhitespace || ($0.asciiValue ?? 32) < 32 })
    else {
      if written == nil || written == "" {
        throw fail(
          "Topic",
          "Topic=\(value("Topic")) cannot be the ClientID (1..128 characters, no spaces): "
            + "set ClientID=")
      }
      throw fail("ClientID", "ClientID=\(value("ClientID")) must be 1..128 characters, no spaces")
    }
    let decide: MQTTSettings.Decide
    do {
      decide = try ConfigValue.choice("Decide", value("Decide"), as: MQTTSettings.Decide.self)
    } catch {
      throw fail("Decide", error.message)
    }
    let siteKey = value("SiteKey")
    if !siteKey.isEmpty, !siteKey.hasPrefix("/") {
      throw fail("SiteKey", "SiteKey=\(siteKey) must be an absolute path")
    }
    if decide == .local, siteKey.isEmpty {
      throw fail(
        places["SiteKey"] == nil ? "Decide" : "SiteKey",
        "Decide=local needs SiteKey= (the site's Ed25519 public key, PEM)")
    }
    let maxReplicaAge: Int
    do {
      maxReplicaAge = try ConfigValue.integer(
        "MaxReplicaAgeSec", value("MaxReplicaAgeSec"), 0...Int(ConfigValue.maximumSeconds) * 10)
    } catch { throw fail("MaxReplicaAgeSec", error.message) }
    return MQTTSettings(
      broker: broker, username: value("Username"), passwordFile: value("PasswordFile"),
      passwordFilePlace: places["PasswordFile"], caFile: value("CAFile"),
      certFile: value("CertFile"), keyFile: value("KeyFile"), clientID: clientID, topic: topic,
      discovery: discovery, discoveryPrefix: prefix, decide: decide, siteKey: siteKey,
      maxReplicaAgeSeconds: maxReplicaAge)
  }
}

extension MQTTConfig {
  /// The ClientID when none is set: `Topic=` (`%H` replaced) with each `/` made `-`, so
  /// the default topic `pinpadd/%H` gives pinpadd.conf(5)'s `pinpadd-%H`, and two
  /// bridges on one host with their own topics get their own ids.
  public static func clientID(forTopic topic: String) -> String {
    String(topic.map { $0 == "/" ? "-" : $0 })
  }
}

/// Where a key or header was read.
public struct ConfigPlace: Equatable, Sendable {
  public var path: String
  public var line: Int
  public init(path: String, line: Int) {
    self.path = path
    self.line = line
  }
}

/// The `[MQTT]` section once checked.
public struct MQTTSettings: Equatable, Sendable {
  public var broker: BrokerURL
  public var username: String
  public var passwordFile: String
  public var passwordFilePlace: ConfigPlace?
  public var caFile: String
  public var certFile: String
  public var keyFile: String
  public var clientID: String
  /// The device's topic, `%H` replaced.
  public var topic: String
  public var discovery: Bool
  public var discoveryPrefix: String
  /// Who decides the codes (pinpadd.conf(5), [MQTT] Decide=; docs/protocol.md, "Replica").
  public enum Decide: String, CaseIterable, Equatable, Sendable {
    /// Every code goes to the site controller.
    case site
    /// The bridge decides from its signed replica.
    case local
  }
  public var decide: Decide = .site
  /// The site's Ed25519 public key (PEM), an absolute path; required with `.local`.
  public var siteKey: String = ""
  /// No fresh signature from the site for this long: every code is denied `stale`; 0: no
  /// limit.
  public var maxReplicaAgeSeconds: Int = 604_800
}

/// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`; an IPv6 host is written in brackets.
public struct BrokerURL: Equatable, Sendable {
  public var tls: Bool
  public var host: String
  public var port: Int

  public init(tls: Bool, host: String, port: Int) {
    self.tls = tls
    self.host = host
    self.port = port
  }

  init(parsing text: String) throws(ConfigProblem) {
    let bad = ConfigProblem(
      "Broker=\(text) is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    var rest: Substring
    if text.hasPrefix("mqtt://") {
      tls = false
      rest = text.dropFirst(7)
    } else if text.hasPrefix("mqtts://") {
      tls = true
      rest = text.dropFirst(8)
    } else {
      throw bad
    }
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    var portText: Substring? = nil
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { throw bad }
      host = String(rest[rest.index(after: rest.startIndex)..<close])
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw bad }
        portText = after.dropFirst()
      }
      guard host.contains(":") else { throw bad }
    } else {
      let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count <= 2 else { throw bad }
      host = String(parts[0])
      if parts.count == 2 { portText = parts[1] }
    }
    let hostOK = host.allSatisfy {
      $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0))
    }
    guard !host.isEmpty, hostOK else { throw bad }
    if let portText {
      guard let number = Int(portText), (1...65535).contains(number),
        portText.allSatisfy({ $0.isASCII && $0.isNumber })
      else { throw ConfigProblem("Broker=\(text): the port must be 1..65535") }
      port = number
    } else {
      port = tls ? 8883 : 1883
    }
  }

  /// `localhost`, 127.0.0.0/8 or ::1: traffic that never leaves the machine.
  public var isLoopback: Bool {
    let name = host.lowercased()
    if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
    let octets = name.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127"
      && octets.allSatisfy { UInt8($0) != nil && $0.allSatisfy(\.isNumber) }
  }
}

extension String {
  /// `%H` replaced by `host` (the only placeholder of pinpadd.conf(5), [MQTT]).
  /// (A byte loop: `firstRange(of:)` would link the regex library into pinpadd.)
  func replacingHost(_ host: String) -> String {
    let bytes = Array(utf8)
    var result: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "%"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "H") {
        result.append(contentsOf: host.utf8)
        i += 2
      } else {
        result.append(bytes[i])
        i += 1
      }
    }
    return String(decoding: result, as: UTF8.self)
  }
}
