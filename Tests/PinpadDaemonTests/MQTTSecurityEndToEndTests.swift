import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// `pinpadctl mqtt` refusing bad configuration (exit 78, FILE:LINE) and bad brokers
/// (exit 69, one line), and connecting over TLS with a CA file and a password file.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct MQTTSecurityEndToEndTests {
  static func bridge(_ config: String, dir: TempDir, launcher: [String] = []) throws -> Finished {
    let path = dir.write("bridge.conf", config)
    let args = ["--socket", dir.file("none.sock"), "mqtt", "--config", path]
    if launcher.isEmpty { return try runProgram(E2E.pinpadctl, args, timeout: 20) }
    return try runProgram(
      launcher[0], Array(launcher.dropFirst()) + [E2E.pinpadctl] + args, timeout: 20)
  }

  static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

  @Test("no Broker=: one line naming the file and the [MQTT] header, exit 78")
  func noBroker() throws {
    let dir = TempDir()
    let done = try Self.bridge("[Entry]\nMinLength=4\n[MQTT]\nTopic=pinpadd/x\n", dir: dir)
    #expect(done.status == 78)
    #expect(
      Self.lines(done.stderr) == [
        "\(dir.file("bridge.conf")):3: [MQTT] Broker= is required (mqtt://HOST[:PORT] or mqtts://HOST[:PORT])"
      ])
  }

  @Test("no [MQTT] section at all: one line, exit 78")
  func noSection() throws {
    let dir = TempDir()
    let done = try Self.bridge("[Entry]\nMinLength=4\n", dir: dir)
    #expect(done.status == 78)
    #expect(Self.lines(done.stderr).count == 1)
    #expect(done.stderr.contains("no [MQTT] section"))
  }

  @Test(
    "a bad broker URL is FILE:LINE for the bridge and for pinpadd --check-config; the daemon itself ignores the section"
  )
  func badURL() throws {
    let dir = TempDir()
    let config = "[MQTT]\nTopic=pinpadd/x\nBroker=http://broker.example\n"
    let done = try Self.bridge(config, dir: dir)
    let path = dir.file("bridge.conf")
    #expect(done.status == 78)
    #expect(
      Self.lines(done.stderr) == [
        "\(path):3: Broker=http://broker.example is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
      ])
    let check = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(check.status == 78)
    #expect(Self.lines(check.stderr) == Self.lines(done.stderr))
    // The daemon runs with it: the section is the bridge's business.
    let daemon = try RunningDaemon(config: config)
    #expect(daemon.isAnswering())
  }

  @Test("pinpadd --check-config prints the [MQTT] section it validated")
  func checkConfigPrints() throws {
    let dir = TempDir()
    let path = dir.write(
      "p.conf", "[MQTT]\nBroker=mqtts://broker.example:8884\nUsername=door\nDiscovery=no\n")
    let check = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(check.stdout.contains("[MQTT]\nBroker=mqtts://broker.example:8884\nUsername=door\n"))
    #expect(check.stdout.contains("Discovery=no\nDiscoveryPrefix=homeassistant\n"))
    let unknown = dir.write("q.conf", "[MQTT]\nBroker=mqtt://localhost\nPassword=hunter2\n")
    let refused = try runProgram(E2E.pinpadd, ["--check-config", "--config", unknown])
    #expect(refused.status == 78)
    #expect(refused.stderr.hasPrefix("\(unknown):3: unknown key Password in [MQTT]"))
  }

  @Test("an unreadable PasswordFile: FILE:LINE of the key, exit 78")
  func unreadablePassword() throws {
    let dir = TempDir()
    let done = try Self.bridge(
      "[MQTT]\nBroker=mqtt://127.0.0.1:1\nUsername=door\nPasswordFile=\(dir.file("missing"))\n",
      dir: dir)
    #expect(done.status == 78)
    let lines = Self.lines(done.stderr)
    #expect(lines.count == 1)
    #expect(
      lines.first?.hasPrefix(
        "\(dir.file("bridge.conf")):4: PasswordFile=\(dir.file("missing")): cannot read") == true,
      "\(lines)")
  }

  @Test(
    "plain mqtt:// to a host that is not loopback is refused before any traffic (checked in an empty network namespace)"
  )
  func insecureRefused() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return }
    let dir = TempDir()
    let done = try Self.bridge(
      "[MQTT]\nBroker=mqtt://192.0.2.7\n", dir: dir, launcher: ["/usr/bin/unshare", "-n"])
    #expect(done.status == 78, "\(done.stderr)")
    #expect(Self.lines(done.stderr).count == 1)
    #expect(
      done.stderr.contains("\(dir.file("bridge.conf")):2: Broker=mqtt://192.0.2.7: plain mqtt://"))
    #expect(done.stderr.contains("AllowInsecure=yes"))
    // With AllowInsecure=yes it does try (and, with no network, keeps retrying).
    let path = dir.write("insecure.conf", "[MQTT]\nBroker=mqtt://192.0.2.7\nAllowInsecure=yes\n")
    let trying = try Background(
      "/usr/bin/unshare",
      ["-n", E2E.pinpadctl, "--socket", dir.file("x.sock"), "mqtt", "--config", path],
      dir: dir, name: "insecure")
    #expect(E2E.waitUntil(timeout: 10) { trying.log.contains("retrying") }, "\(trying.log)")
    #expect(trying.isRunning)
    trying.kill(SIGTERM)
  }

  @Test("TLS with the test CA: the bridge connects over mqtts:// and comes online")
  func tlsConnects() throws {
    let dir = TempDir()
    let broker = try Broker(tls: true, dir: dir)
    let sub = try Subscriber(broker, "pinpadd/tls/status", dir: dir)
    let daemon = try TypedDaemon(
      config: mqttSection(
        broker: "mqtts://localhost:\(broker.tlsPort)", topic: "pinpadd/tls",
        extra: ["CAFile=\(dir.file("ca.crt"))"]), dir: dir)
    let bridge = try Background(
      E2E.pinpadctl, ["--socket", daemon.socket, "mqtt", "--config", daemon.configPath], dir: dir,
      name: "bridge")
    #expect(sub.waitFor("pinpadd/tls/status") { $0.payload == "online" } != nil, "\(bridge.log)")
    let codes = try Subscriber(broker, "pinpadd/tls/+/code", dir: dir)
    daemon.type("9876\r")
    #expect(codes.waitFor("pinpadd/tls/default/code")?.json?["code"] as? String == "9876")
  }

  @Test(
    "a broker that requires a client certificate takes CertFile/KeyFile and refuses a bridge without one (exit 69)"
  )
  func clientCertificate() throws {
    let dir = TempDir()
    let broker = try Broker(tls: true, dir: dir)
    let without = try Self.bridge(
      mqttSection(
        broker: "mqtts://localhost:\(broker.certPort)", topic: "pinpadd/cert",
        extra: ["CAFile=\(dir.file("ca.crt"))"]), dir: dir)
    #expect(without.status == 69, "\(without.stderr)")
    #expect(Self.lines(without.stderr).count == 1, "\(without.stderr)")

    let sub = try Subscriber(broker, "pinpadd/cert/status", dir: dir)
    let daemon = try TypedDaemon(
      config: mqttSection(
        broker: "mqtts://localhost:\(broker.certPort)", topic: "pinpadd/cert",
        extra: [
          "CAFile=\(dir.file("ca.crt"))", "CertFile=\(dir.file("client.crt"))",
          "KeyFile=\(dir.file("client.key"))",
        ]), dir: dir)
    let bridge = try Background(
      E2E.pinpadctl, ["--socket", daemon.socket, "mqtt", "--config", daemon.configPath], dir: dir,
      name: "bridge")
    #expect(sub.waitFor("pinpadd/cert/status") { $0.payload == "online" } != nil, "\(bridge.log)")
  }

  @Test("TLS with the wrong CA: refused with one clear line, exit 69")
  func wrongCA() throws {
    let dir = TempDir()
    let broker = try Broker(tls: true, dir: dir)
    let done = try Self.bridge(
      mqttSection(
        broker: "mqtts://localhost:\(broker.tlsPort)", topic: "pinpadd/tls",
        extra: ["CAFile=\(dir.file("other-ca.crt"))"]), dir: dir)
    #expect(done.status == 69, "\(done.stderr)")
    #expect(Self.lines(done.stderr).count == 1, "\(done.stderr)")
    #expect(done.stderr.contains("TLS check failed"))
  }

  @Test("a wrong password is refused with one clear line, exit 69; the right one connects")
  func passwords() throws {
    let dir = TempDir()
    let broker = try Broker(users: ["door1": "right-horse-battery"], dir: dir)
    let wrong = dir.write("wrong", "staple\n")
    let done = try Self.bridge(
      mqttSection(
        broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/pw",
        extra: ["Username=door1", "PasswordFile=\(wrong)"]), dir: dir)
    #expect(done.status == 69, "\(done.stderr)")
    #expect(Self.lines(done.stderr).count == 1, "\(done.stderr)")
    #expect(done.stderr.contains("refused the connection"))
    #expect(!done.stderr.contains("staple"))

    let right = dir.write("right", "right-horse-battery\n")
    let sub = try Subscriber(broker, "pinpadd/pw/status", dir: dir)
    let daemon = try TypedDaemon(
      config: mqttSection(
        broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/pw",
        extra: ["Username=door1", "PasswordFile=\(right)"]), dir: dir)
    let bridge = try Background(
      E2E.pinpadctl, ["--socket", daemon.socket, "mqtt", "--config", daemon.configPath], dir: dir,
      name: "bridge")
    #expect(sub.waitFor("pinpadd/pw/status") { $0.payload == "online" } != nil, "\(bridge.log)")
  }
}
