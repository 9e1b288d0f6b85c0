import Testing

@testable import PinpadCore

private func mqtt(_ text: String, host: String = "door1") throws(ConfigError) -> MQTTSettings {
  let config = try ConfigParser.parse([ConfigSource(path: "p.conf", text: text)])
  return try config.mqtt.validated(hostName: host)
}

private func mqttError(_ text: String) -> ConfigError? {
  do {
    _ = try mqtt(text)
    return nil
  } catch { return error }
}

@Suite struct MQTTConfigTests {
  @Test("defaults: ClientID pinpadd-%H, Topic pinpadd/%H, discovery on under homeassistant")
  func defaults() throws {
    let settings = try mqtt("[MQTT]\nBroker=mqtt://localhost\n")
    #expect(settings.broker == BrokerURL(tls: false, host: "localhost", port: 1883))
    #expect(settings.clientID == "pinpadd-door1")
    #expect(settings.topic == "pinpadd/door1")
    #expect(settings.discovery)
    #expect(settings.discoveryPrefix == "homeassistant")
  }

  @Test("Decide=site by default, MaxReplicaAgeSec=604800; local with SiteKey=")
  func decide() throws {
    let site = try mqtt("[MQTT]\nBroker=mqtt://localhost\n")
    #expect(site.decide == .site)
    #expect(site.maxReplicaAgeSeconds == 604_800)
    let local = try mqtt(
      "[MQTT]\nBroker=mqtt://localhost\nDecide=local\nSiteKey=/etc/pinpadd/site.pub\n"
        + "MaxReplicaAgeSec=0\n")
    #expect(local.decide == .local)
    #expect(local.siteKey == "/etc/pinpadd/site.pub")
    #expect(local.maxReplicaAgeSeconds == 0)
  }

  @Test(
    "Decide=local needs SiteKey=, an absolute path; a bad Decide= or MaxReplicaAgeSec= names its line",
    arguments: [
      ("Decide=local\n", 3, "needs SiteKey="),
      ("Decide=local\nSiteKey=site.pub\n", 4, "absolute path"),
      ("Decide=door\n", 3, "not one of site or local"),
      ("MaxReplicaAgeSec=-1\n", 3, "MaxReplicaAgeSec=-1"),
      ("MaxReplicaAgeSec=week\n", 3, "not a whole number"),
    ])
  func decideRefusals(text: String, line: Int, message: String) {
    let error = mqttError("[MQTT]\nBroker=mqtt://localhost\n" + text)
    #expect(error?.path == "p.conf")
    #expect(error?.line == line)
    #expect(error?.message.contains(message) == true)
  }

  @Test(
    "no ClientID= (or an empty one): the ClientID is Topic= with each / made -, so two devices on one host differ"
  )
  func clientIDFromTopic() throws {
    let a = try mqtt("[MQTT]\nBroker=mqtt://localhost\nTopic=site/%H/a\n")
    let b = try mqtt("[MQTT]\nBroker=mqtt://localhost\nTopic=site/%H/b\nClientID=\n")
    #expect(a.clientID == "site-door1-a")
    #expect(b.clientID == "site-door1-b")
    let set = try mqtt("[MQTT]\nBroker=mqtt://localhost\nTopic=site/a\nClientID=front-%H\n")
    #expect(set.clientID == "front-door1")
  }

  @Test("a Topic= with a space cannot be the default ClientID: FILE:LINE of Topic=")
  func clientIDFromTopicWithSpace() throws {
    let error = mqttError("[MQTT]\nBroker=mqtt://localhost\nTopic=site/front door\n")
    #expect(error?.line == 3)
    #expect(error?.message.contains("set ClientID=") == true)
  }

  @Test(
    "broker URLs: schemes, default ports, IPv6 in brackets",
    arguments: [
      ("mqtt://127.0.0.1", false, "127.0.0.1", 1883),
      ("mqtts://broker.example", true, "broker.example", 8883),
      ("mqtts://broker.example:8884/", true, "broker.example", 8884),
      ("mqtt://[::1]:1884", false, "::1", 1884),
    ])
  func brokerURLs(text: String, tls: Bool, host: String, port: Int) throws {
    let settings = try mqtt("[MQTT]\nBroker=\(text)\n")
    #expect(settings.broker == BrokerURL(tls: tls, host: host, port: port))
  }

  @Test(
    "bad values name their line",
    arguments: [
      (
        "[MQTT]\nBroker=tcp://x\n", 2,
        "Broker=tcp://x is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
      ),
      (
        "[MQTT]\nBroker=mqtt://localhost:0\n", 2,
        "Broker=mqtt://localhost:0: the port must be 1..65535"
      ),
      (
        "[MQTT]\nBroker=mqtt://localhost:http\n", 2,
        "Broker=mqtt://localhost:http: the port must be 1..65535"
      ),
      (
        "[MQTT]\nBroker=mqtt://\n", 2,
        "Broker=mqtt:// is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
      ),
      (
        "[MQTT]\nBroker=mqtt://localhost\nDiscovery=maybe\n", 3,
        "Discovery=maybe is not a boolean (use yes or no)"
      ),
      (
        "[MQTT]\nBroker=mqtt://localhost\nTopic=pinpadd/#\n", 3,
        "Topic=pinpadd/#: a topic must not contain the wildcards + or #"
      ),
      (
        "[MQTT]\nBroker=mqtt://localhost\nTopic=pinpadd/\n", 3,
        "Topic=pinpadd/: a topic must not have an empty level (a leading, trailing or double /)"
      ),
      (
        "[MQTT]\nBroker=mqtt://localhost\nCAFile=/etc/ca.pem\n", 3,
        "CAFile= needs an mqtts:// broker"
      ),
      (
        "[MQTT]\nBroker=mqtts://b.example\nCertFile=/etc/c.pem\n", 3,
        "CertFile= needs KeyFile= too (a client certificate and its key)"
      ),
      (
        "[MQTT]\nBroker=mqtts://b.example\nUsername=u\nPasswordFile=pw\n", 4,
        "PasswordFile=pw must be an absolute path"
      ),
      ("[MQTT]\nBroker=mqtts://b.example\nPasswordFile=/pw\n", 3, "PasswordFile= needs Username="),
      (
        "[MQTT]\nBroker=mqtt://localhost\nClientID=a b\n", 3,
        "ClientID=a b must be 1..128 characters, no spaces"
      ),
    ])
  func badValues(text: String, line: Int, message: String) {
    #expect(mqttError(text) == ConfigError(path: "p.conf", line: line, message: message))
  }

  @Test("a missing Broker blames the [MQTT] header")
  func missingBroker() {
    #expect(
      mqttError("[Entry]\nMinLength=4\n\n[MQTT]\nTopic=x\n")
        == ConfigError(
          path: "p.conf", line: 4,
          message: "[MQTT] Broker= is required (mqtt://HOST[:PORT] or mqtts://HOST[:PORT])"))
  }

  @Test(
    "plain mqtt:// is allowed to loopback only, unless AllowInsecure=yes",
    arguments: ["localhost", "127.0.0.1", "127.3.2.1", "[::1]"])
  func loopbackIsFine(host: String) throws {
    _ = try mqtt("[MQTT]\nBroker=mqtt://\(host)\n")
  }

  @Test(
    "plain mqtt:// to another host is refused, naming AllowInsecure",
    arguments: ["10.0.0.2", "broker.lan", "128.0.0.1", "127.0.0.1.example"])
  func insecureRefused(host: String) throws {
    let error = mqttError("[MQTT]\nBroker=mqtt://\(host)\n")
    #expect(error?.line == 2)
    #expect(error?.message.contains("AllowInsecure=yes") == true)
    _ = try mqtt("[MQTT]\nBroker=mqtt://\(host)\nAllowInsecure=yes\n")
    _ = try mqtt("[MQTT]\nBroker=mqtts://\(host)\n")
  }

  @Test("the daemon's parser accepts any [MQTT] values; unknown keys are still errors")
  func daemonIgnoresValues() throws {
    let config = try ConfigParser.parse([
      ConfigSource(path: "p.conf", text: "[MQTT]\nBroker=nonsense\nDiscovery=maybe\n")
    ])
    #expect(config.mqtt.isPresent)
    #expect(config.mqtt.values["Broker"] == "nonsense")
    #expect(throws: ConfigError.self) {
      try ConfigParser.parse([ConfigSource(path: "p.conf", text: "[MQTT]\nbroker=x\n")])
    }
    #expect(
      (try? ConfigParser.parse([ConfigSource(path: "p.conf", text: "[Entry]\n")]))?.mqtt.isPresent
        == false)
  }

  @Test("later drop-ins win key by key and are blamed with their own file")
  func dropIns() throws {
    let config = try ConfigParser.parse([
      ConfigSource(path: "main.conf", text: "[MQTT]\nBroker=mqtt://localhost\nTopic=site/a\n"),
      ConfigSource(path: "main.conf.d/10.conf", text: "[MQTT]\nTopic=site/#\n"),
    ])
    #expect(config.mqtt.value("Broker") == "mqtt://localhost")
    #expect(
      throws: ConfigError(
        path: "main.conf.d/10.conf", line: 2,
        message: "Topic=site/#: a topic must not contain the wildcards + or #")
    ) {
      try config.mqtt.validated(hostName: "h")
    }
  }

  @Test("check-config's rendering of [MQTT] parses back to the same values")
  func renderRoundTrip() throws {
    let config = try ConfigParser.parse([
      ConfigSource(path: "p.conf", text: "[MQTT]\nBroker=mqtts://b.example\nUsername=door\n")
    ])
    let again = try ConfigParser.parse([ConfigSource(path: "r.conf", text: config.render())])
    for key in MQTTConfig.keys { #expect(again.mqtt.value(key) == config.mqtt.value(key)) }
    #expect(!config.render().contains("hunter"))
  }

  @Test("check-config prints the ClientID in effect: pinpadd-%H by default, else from Topic=")
  func renderedClientID() throws {
    func rendered(_ text: String) throws -> [Substring] {
      try ConfigParser.parse([ConfigSource(path: "p.conf", text: "[MQTT]\n" + text)]).render()
        .split(separator: "\n").filter { $0.hasPrefix("ClientID=") }
    }
    #expect(try rendered("Broker=mqtt://localhost\n") == ["ClientID=pinpadd-%H"])
    #expect(try rendered("Broker=mqtt://localhost\nClientID=\n") == ["ClientID=pinpadd-%H"])
    #expect(try rendered("Topic=site/%H/a\n") == ["ClientID=site-%H-a"])
    #expect(try rendered("ClientID=front-%H\nTopic=site/a\n") == ["ClientID=front-%H"])
    // What it prints is what the bridge uses.
    let printed = try ConfigParser.parse([
      ConfigSource(path: "r.conf", text: "[MQTT]\nBroker=mqtt://localhost\nClientID=pinpadd-%H\n")
    ])
    #expect(try printed.mqtt.validated(hostName: "door1").clientID == "pinpadd-door1")
  }
}

@Suite struct MQTTTopicTests {
  @Test("a keypad name becomes one topic level")
  func keypadLevel() {
    #expect(MQTTTopic.level(forKeypad: "front-door") == "front-door")
    #expect(MQTTTopic.level(forKeypad: "a/b+c#d e") == "a_b_c_d_e")
    #expect(MQTTTopic.level(forKeypad: "") == "_")
  }

  @Test("a separator followed by a combining mark is still replaced (found by make fuzz)")
  func keypadLevelWithCombiningMarks() {
    // U+035C combines with the character before it: "/\u{35C}" is one Character.
    let level = MQTTTopic.level(forKeypad: "a/\u{35C}b+\u{301}c#\u{35C}\u{7F}")
    #expect(!level.utf8.contains(UInt8(ascii: "/")))
    #expect(!level.utf8.contains(UInt8(ascii: "+")))
    #expect(!level.utf8.contains(UInt8(ascii: "#")))
    #expect(level == "a_\u{35C}b_\u{301}c_\u{35C}_")
  }

  @Test("code filters must end in /+/code")
  func codeFilters() {
    #expect(MQTTTopic.problemAsCodeFilter("pinpadd/+/+/code") == nil)
    #expect(MQTTTopic.problemAsCodeFilter("site/a/+/code") == nil)
    #expect(MQTTTopic.problemAsCodeFilter("pinpadd/#") != nil)
    #expect(MQTTTopic.problemAsCodeFilter("pinpadd/+/code/x") != nil)
    #expect(MQTTTopic.problemAsCodeFilter("/+/code") != nil)
    #expect(MQTTTopic.problemAsCodeFilter("a#/+/code") != nil)
  }

  @Test("the verdict topic sits beside the code topic")
  func verdictTopic() {
    #expect(
      MQTTTopic.verdictTopic(forCodeTopic: "pinpadd/door1/main/code")
        == "pinpadd/door1/main/verdict")
    #expect(MQTTTopic.verdictTopic(forCodeTopic: "pinpadd/door1/main/event") == nil)
  }

  @Test("MQTT filter matching: + is one level, # the rest")
  func matching() {
    #expect(MQTTTopic.matches("pinpadd/d1/k/code", filter: "pinpadd/+/+/code"))
    #expect(!MQTTTopic.matches("pinpadd/d1/k/x/code", filter: "pinpadd/+/+/code"))
    #expect(!MQTTTopic.matches("pinpadd/d1/code", filter: "pinpadd/+/+/code"))
    #expect(MQTTTopic.matches("pinpadd/d1/k/code", filter: "pinpadd/#"))
    #expect(!MQTTTopic.matches("other/d1/k/code", filter: "pinpadd/#"))
  }

  @Test("%H is replaced wherever it stands, leftmost first; other % and UTF-8 stay")
  func hostPlaceholder() {
    #expect("pinpadd/%H".replacingHost("door1") == "pinpadd/door1")
    #expect("%H%H-%%H-%h-%".replacingHost("dé") == "dédé-%dé-%h-%")
    #expect("ünïcode/%H/x".replacingHost("h") == "ünïcode/h/x")
    #expect("".replacingHost("h") == "")
  }
}
