import Foundation
import Glibc
import PinpadControlCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// A door deciding codes itself (`[MQTT] Decide=local`; docs/protocol.md, "Replica"):
/// a real daemon typed on, its bridge, a real Mosquitto on loopback, and replicas signed
/// in the test with a key made by `openssl`.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct MQTTLocalDoorEndToEndTests {
  /// The site's key pair, a codes file's lines, and replicas of them published retained.
  final class Site {
    let keys: Ed25519Tests.Keys
    let signer: Ed25519SigningKey
    let dir: TempDir
    init(dir: TempDir) throws {
      self.dir = dir
      keys = try Ed25519Tests.Keys()
      signer = try Ed25519SigningKey(path: keys.privatePath)
    }

    func replica(
      device: String = "door1", generation: UInt64, lines: [String],
      signer: Ed25519SigningKey? = nil
    ) throws -> [UInt8] {
      var replica = Replica(
        device: device, generation: generation,
        madeMs: Int64(Date().timeIntervalSince1970 * 1000), lines: lines.map { Array($0.utf8) })
      replica.signature = try (signer ?? self.signer).sign(replica.signedBytes)
      return replica.encoded()
    }

    /// Publishes `bytes` retained on `topic` (mosquitto_pub -r -f).
    func publish(_ broker: Broker, _ topic: String, _ bytes: [UInt8]) throws {
      let file = dir.file("replica-\(UInt32.random(in: 0...UInt32.max))")
      FileManager.default.createFile(atPath: file, contents: Data(bytes))
      let done = try runProgram(
        "/usr/bin/mosquitto_pub",
        broker.clientArguments + ["-q", "1", "-r", "-t", topic, "-f", file])
      #expect(done.status == 0, "mosquitto_pub: \(done.stderr)")
    }
  }

  static func hash(_ name: String, _ pin: String) throws -> String {
    let done = try runProgram(E2E.pinpadctl, ["hash", name], input: pin + "\n", timeout: 30)
    return done.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func startBridge(_ daemon: TypedDaemon, dir: TempDir) throws -> Background {
    try Background(
      E2E.pinpadctl,
      [
        "--socket", daemon.socket, "mqtt", "--config", daemon.configPath, "--state-dir",
        dir.file("bridge-state"),
      ], dir: dir, name: "bridge")
  }

  /// A broker, a site whose replica of generation `generation` (alice 2468, carol 1357
  /// with uses=3) is retained for door1, the site's status, a subscriber on `#`, and a
  /// daemon whose bridge decides locally.
  final class Rig {
    let dir = TempDir()
    let broker: Broker
    let site: Site
    let lines: [String]
    let sub: Subscriber
    let daemon: TypedDaemon
    var bridge: Background

    init(generation: UInt64, siteStatus: String, extra: [String] = []) throws {
      broker = try Broker(dir: dir)
      site = try Site(dir: dir)
      lines = [
        try MQTTLocalDoorEndToEndTests.hash("alice", "2468"),
        try MQTTLocalDoorEndToEndTests.hash("carol", "1357") + ":uses=3",
      ]
      sub = try Subscriber(broker, dir: dir)
      try site.publish(
        broker, "pinpadd/door1/replica", try site.replica(generation: generation, lines: lines))
      try broker.publish("pinpadd/site/status", siteStatus, retain: true)
      let config = mqttSection(
        broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/door1",
        extra: ["Decide=local", "SiteKey=\(site.keys.publicPath)"] + extra)
      daemon = try TypedDaemon(config: config, dir: dir)
      bridge = try MQTTLocalDoorEndToEndTests.startBridge(daemon, dir: dir)
    }
  }

  /// Types `code` and returns the verdict event the daemon sends its clients.
  static func verdict(_ daemon: TypedDaemon, _ watcher: TestClient, _ code: String) throws
    -> [String: Any]?
  {
    daemon.type(code + "\r")
    return try watcher.waitFor("verdict", timeout: 20)?.message
  }

  @Test(
    "the door decides from its signed replica: right PIN granted, wrong denied, uses= denied unavailable with the site offline, bad replicas refused, broker gone and bridge restarted without it still decide, the log goes out until acked, no digit on any topic"
  )
  func localDoor() throws {
    let rig = try Rig(generation: 3, siteStatus: "offline")
    let (dir, broker, site, sub, daemon) = (rig.dir, rig.broker, rig.site, rig.sub, rig.daemon)
    var bridge = rig.bridge
    #expect(
      E2E.waitUntil(timeout: 20) { bridge.log.contains("took the replica of generation 3") },
      "\(bridge.log)")
    let state = sub.waitFor("pinpadd/door1/replica/state") {
      $0.json?["generation"] as? Int == 3
    }
    #expect(state?.json?["people"] as? Int == 2)
    let kept = dir.file("bridge-state/replica")
    #expect(
      ((try? FileManager.default.attributesOfItem(atPath: kept))?[.posixPermissions] as? Int)
        == 0o600)

    let watcher = try daemon.connect()
    #expect(try Self.verdict(daemon, watcher, "2468")?["result"] as? String == "granted")
    let denied = try Self.verdict(daemon, watcher, "1111")
    #expect(denied?["result"] as? String == "denied")
    #expect(denied?["reason"] as? String == "unknown")
    let unavailable = try Self.verdict(daemon, watcher, "1357")
    #expect(unavailable?["reason"] as? String == "unavailable", "\(bridge.log)")
    // Nothing went to the site: no code topic at all.
    #expect(!sub.messages.contains { $0.topic.hasSuffix("/code") })

    // The log: three entries, then an ack of two leaves one pending.
    let third = sub.waitFor("pinpadd/door1/log") { $0.json?["seq"] as? Int == 3 }
    #expect(third?.json?["reason"] as? String == "unavailable")
    #expect(third?.json?["person"] as? String == "carol")
    let logID = try #require(third?.json?["log"] as? String)
    try broker.publish("pinpadd/door1/log/ack", #"{"log":"\#(logID)","upto":2}"#)
    #expect(
      sub.waitFor("pinpadd/door1/replica/state") { $0.json?["log_pending"] as? Int == 1 } != nil)

    // Forged, older and other-device replicas: refused, one line each; the old one stays.
    let otherKeys = try Ed25519Tests.Keys()
    let other = try Ed25519SigningKey(path: otherKeys.privatePath)
    try site.publish(
      broker, "pinpadd/door1/replica", try site.replica(generation: 9, lines: [], signer: other))
    try site.publish(broker, "pinpadd/door1/replica", try site.replica(generation: 2, lines: []))
    try site.publish(
      broker, "pinpadd/door1/replica", try site.replica(device: "door2", generation: 9, lines: []))
    #expect(
      E2E.waitUntil(timeout: 20) {
        bridge.log.contains("signature does not verify")
          && bridge.log.contains("not newer than the 3 held")
          && bridge.log.contains("another device (door2)")
      }, "\(bridge.log)")
    #expect(try Self.verdict(daemon, watcher, "2468")?["result"] as? String == "granted")

    // The broker gone: the door still decides.
    broker.kill()
    #expect(try Self.verdict(daemon, watcher, "2468")?["result"] as? String == "granted")
    #expect(try Self.verdict(daemon, watcher, "9999")?["result"] as? String == "denied")
    // The bridge restarted with no broker: it decides from the replica it kept.
    bridge.kill(SIGTERM)
    bridge = try Self.startBridge(daemon, dir: dir)
    #expect(
      E2E.waitUntil(timeout: 20) { bridge.log.contains("kept replica, generation 3") },
      "\(bridge.log)")
    #expect(E2E.waitUntil(timeout: 20) { bridge.log.contains("connected to the daemon") })
    #expect(try Self.verdict(daemon, watcher, "2468")?["result"] as? String == "granted")

    // The broker back: the entries not acked (3 to 7) are sent again, and an ack stops
    // them. (A new subscriber: the first one lost its broker.)
    try broker.start()
    let sub2 = try Subscriber(broker, dir: dir)
    #expect(
      sub2.waitFor("pinpadd/door1/log", timeout: 40) { $0.json?["seq"] as? Int == 3 } != nil,
      "\(bridge.log)")
    #expect(sub2.waitFor("pinpadd/door1/log", timeout: 30) { $0.json?["seq"] as? Int == 7 } != nil)
    #expect(
      !sub2.messages.contains { $0.topic == "pinpadd/door1/log" && $0.json?["seq"] as? Int == 2 })
    try broker.publish("pinpadd/door1/log/ack", #"{"log":"\#(logID)","upto":7}"#)
    #expect(
      sub2.waitFor("pinpadd/door1/replica/state", timeout: 30) {
        $0.json?["log_pending"] as? Int == 0
      } != nil, "\(bridge.log)")

    // No digit of any code on any topic the door publishes, nor in the bridge's log.
    for pin in ["2468", "1111", "1357", "9999"] {
      // (The replicas are the test's own: hashes, whose '.' and '/' cut random runs short.)
      for message in sub.messages + sub2.messages where message.topic != "pinpadd/door1/replica" {
        #expect(!shows(pin, in: message.topic + " " + message.payload), "\(message.topic)")
      }
      // (The broker's random port is in the log: a port is no code.)
      let log = bridge.log.replacingOccurrences(of: ":\(broker.port)", with: ":PORT")
      #expect(!shows(pin, in: log))
    }
  }

  @Test(
    "with the site online a uses= line's code goes to the site and its verdict comes back; other codes stay local; after MaxReplicaAgeSec without a fresh replica every code is denied stale"
  )
  func countedCodesGoToTheSiteAndAnOldReplicaIsStale() throws {
    let rig = try Rig(generation: 1, siteStatus: "online", extra: ["MaxReplicaAgeSec=4"])
    let (broker, site, sub, daemon, bridge) = (
      rig.broker, rig.site, rig.sub, rig.daemon, rig.bridge
    )
    #expect(
      E2E.waitUntil(timeout: 20) {
        bridge.log.contains("took the replica") && bridge.log.contains("the site is online")
      }, "\(bridge.log)")
    let watcher = try daemon.connect()

    daemon.type("1357\r")
    let code = sub.waitFor("pinpadd/door1/default/code", timeout: 20)
    #expect(code?.json?["code"] as? String == "1357", "\(bridge.log)")
    let id = try #require(code?.json?["id"] as? String)
    try broker.publish(
      "pinpadd/door1/default/verdict", #"{"id":"\#(id)","result":"granted"}"#)
    let verdict = try watcher.waitFor("verdict", timeout: 20) { $0.string("id") == id }
    #expect(verdict?.message.string("result") == "granted")
    #expect(try Self.verdict(daemon, watcher, "2468")?["result"] as? String == "granted")
    #expect(
      sub.messages.filter { $0.topic.hasSuffix("/code") }.count == 1, "only the uses= code left")
    // The site decided the counted code: the door logged only its own decision.
    #expect(
      sub.waitFor("pinpadd/door1/log") { $0.json?["seq"] as? Int == 1 }?.json?["person"]
        as? String == "alice")

    // The 16 MiB bound is the replica topic's only: a verdict over 64 KiB is dropped unread.
    try broker.publish("pinpadd/door1/default/verdict", String(repeating: "x", count: 100_000))
    #expect(
      E2E.waitUntil(timeout: 20) { bridge.log.contains("over 64 KiB, dropped unread") },
      "\(bridge.log)")

    // No fresh replica for MaxReplicaAgeSec=4: stale.
    #expect(
      E2E.waitUntil(timeout: 30) {
        (try? Self.verdict(daemon, watcher, "2468"))??["reason"] as? String == "stale"
      })
    try site.publish(
      broker, "pinpadd/door1/replica", try site.replica(generation: 2, lines: rig.lines))
    #expect(E2E.waitUntil(timeout: 20) { bridge.log.contains("generation 2") })
    #expect(try Self.verdict(daemon, watcher, "2468")?["result"] as? String == "granted")
  }

  @Test(
    "Decide=local without SiteKey=: pinpadd --check-config and the bridge say FILE:LINE, exit 78; a SiteKey= that is no key: the bridge exits 78"
  )
  func badLocalConfiguration() throws {
    let dir = TempDir()
    let path = dir.write("p.conf", "[MQTT]\nBroker=mqtt://127.0.0.1\nDecide=local\n")
    let check = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(check.status == 78)
    #expect(check.stderr.hasPrefix("\(path):3: "), "\(check.stderr)")
    #expect(check.stderr.contains("needs SiteKey="))
    let bridge = try runProgram(
      E2E.pinpadctl, ["--socket", dir.file("none.sock"), "mqtt", "--config", path])
    #expect(bridge.status == 78)
    #expect(bridge.stderr == check.stderr)

    let notAKey = dir.write("site.pub", "not a key\n")
    let keyed = dir.write(
      "k.conf", "[MQTT]\nBroker=mqtt://127.0.0.1\nDecide=local\nSiteKey=\(notAKey)\n")
    let refused = try runProgram(
      E2E.pinpadctl,
      [
        "--socket", dir.file("none.sock"), "mqtt", "--config", keyed, "--state-dir",
        dir.file("state"),
      ])
    #expect(refused.status == 78, "\(refused.stderr)")
    #expect(refused.stderr.contains("SiteKey=\(notAKey)"), "\(refused.stderr)")
    #expect(refused.stderr.split(separator: "\n").count == 1)
  }
}
