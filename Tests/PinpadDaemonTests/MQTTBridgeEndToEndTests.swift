import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// `pinpadctl mqtt` against a real Mosquitto on loopback, every rule of docs/protocol.md,
/// "MQTT: topics" and "MQTT: verdicts", checked from a real MQTT client (mosquitto_sub /
/// mosquitto_pub).
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct MQTTBridgeEndToEndTests {
  /// A daemon and its bridge sharing one config file (the daemon ignores [MQTT]).
  struct Device {
    let daemon: TypedDaemon
    let bridge: Background
    let topic: String
  }

  static func device(
    _ broker: Broker, topic: String = "pinpadd/door1", extra: [String] = [], dir: TempDir,
    name: String = "pinpadd", config: String = ""
  ) throws -> Device {
    let conf =
      config + mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: topic, extra: extra)
    let daemon = try TypedDaemon(config: conf, dir: dir, name: name)
    let bridge = try Background(
      E2E.pinpadctl, ["--socket", daemon.socket, "mqtt", "--config", daemon.configPath], dir: dir,
      name: "bridge-\(name)")
    return Device(daemon: daemon, bridge: bridge, topic: topic)
  }

  @Test(
    "status online is retained; a code goes out unretained on TOPIC/KEYPAD/code; a verdict on TOPIC/KEYPAD/verdict reaches the daemon"
  )
  func verdictRoundTrip() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, dir: dir)
    let door = try Self.device(broker, dir: dir)
    let online = sub.waitFor("pinpadd/door1/status") { $0.payload == "online" }
    #expect(online != nil, "\(door.bridge.log)")
    #expect(try broker.retained("pinpadd/door1/status").map(\.payload) == ["online"])
    let watcher = try door.daemon.connect()

    door.daemon.type("2468\r")
    let code = sub.waitFor("pinpadd/door1/default/code")
    #expect(code?.retained == false)
    #expect(code?.json?["code"] as? String == "2468")
    let id = try #require(code?.json?["id"] as? String)
    // Entry events went to the event topic, as the socket sent them.
    #expect(
      sub.waitFor("pinpadd/door1/default/event") { $0.json?["event"] as? String == "started" }
        != nil)

    try broker.publish(
      "pinpadd/door1/default/verdict", #"{"id":"\#(id)","result":"granted","message":"Welcome"}"#)
    let verdict = try watcher.waitFor("verdict", timeout: 10) { $0.string("id") == id }
    #expect(verdict?.message.string("result") == "granted")
    // ... and the daemon's verdict event comes back on the event topic.
    let event = sub.waitFor("pinpadd/door1/default/event") {
      $0.json?["type"] as? String == "verdict"
    }
    #expect(event?.json?["result"] as? String == "granted")
    #expect(event?.retained == false)

    // Nothing under the code topic is retained; no digit reached the bridge's log.
    #expect(try broker.retained("pinpadd/door1/+/code").isEmpty)
    #expect(!shows("2468", in: door.bridge.log))
  }

  @Test("a card read reaches TOPIC/KEYPAD/event as the socket's entry card_read, no digit")
  func cardReadForwarded() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, dir: dir)
    let card = "7305918264"
    // The reader types its card 4 s after the start: the bridge is on the socket by then.
    let reader = dir.write(
      "reader.txt",
      E2E.recording(
        card + "\n", firstGap: 4, gap: 0.01, keypad: true, name: "ACME HID card reader"))
    let daemon = try RunningDaemon(
      config: "[Keypad door]\nCardReader=name:ACME?HID?card*\nCardMode=card+pin\n"
        + mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/door1"),
      dir: dir, extraArguments: ["--input", "replay:" + reader])
    let bridge = try Background(
      E2E.pinpadctl, ["--socket", daemon.socket, "mqtt", "--config", daemon.configPath], dir: dir,
      name: "bridge")
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil, "\(bridge.log)")
    let event = sub.waitFor("pinpadd/door1/door/event", timeout: 15) {
      $0.json?["event"] as? String == "card_read"
    }
    #expect(event?.json?["type"] as? String == "entry")
    #expect(event?.json?["length"] as? Int == 0)
    #expect(event?.retained == false)
    #expect(event.map { !$0.payload.contains(card) } ?? false)
    #expect(!shows(card, in: bridge.log))
    #expect(daemon.stop() == 0)
  }

  @Test(
    "TOPIC/KEYPAD/state is retained and republished on change: idle, entering, checking, idle with one attempt fewer"
  )
  func retainedState() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/door1/default/+", dir: dir)
    let door = try Self.device(broker, dir: dir, config: "[Lockout]\nMaxFailures=3\n")
    let first = sub.waitFor("pinpadd/door1/default/state")
    #expect(first?.json?["phase"] as? String == "idle", "\(door.bridge.log)")
    #expect(first?.json?["attempts_left"] as? Int == 3)
    door.daemon.type("1")
    #expect(
      sub.waitFor("pinpadd/door1/default/state") { $0.json?["phase"] as? String == "entering" }
        != nil)
    door.daemon.type("357\r")
    #expect(
      sub.waitFor("pinpadd/door1/default/state") { $0.json?["phase"] as? String == "checking" }
        != nil)
    let id = try #require(sub.waitFor("pinpadd/door1/default/code")?.json?["id"] as? String)
    try broker.publish("pinpadd/door1/default/verdict", #"{"id":"\#(id)","result":"denied"}"#)
    let after = sub.waitFor("pinpadd/door1/default/state") {
      $0.json?["phase"] as? String == "idle" && $0.json?["attempts_left"] as? Int == 2
    }
    #expect(after != nil, "\(sub.messages)")
    let retained = try broker.retained("pinpadd/door1/default/state")
    #expect(retained.count == 1)
    #expect(retained.first?.retained == true)
    #expect(retained.first?.json?["attempts_left"] as? Int == 2)
    // Republished on change only: no two identical states in a row.
    let payloads = sub.messages.filter { $0.topic.hasSuffix("/state") }.map(\.payload)
    #expect(zip(payloads, payloads.dropFirst()).allSatisfy { $0 != $1 }, "\(payloads)")
  }

  @Test(
    "a lockout shows as phase locked with its seconds and no attempt left, and idle again once it ends"
  )
  func lockoutState() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, dir: dir)
    let door = try Self.device(
      broker, dir: dir, config: "[Lockout]\nMaxFailures=1\nLockoutSec=2\n")
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil)
    door.daemon.type("1111\r")
    let id = try #require(sub.waitFor("pinpadd/door1/default/code")?.json?["id"] as? String)
    try broker.publish("pinpadd/door1/default/verdict", #"{"id":"\#(id)","result":"denied"}"#)
    let lockedAt = try #require(
      sub.waitForIndex("pinpadd/door1/default/state") { $0.json?["phase"] as? String == "locked" },
      "\(sub.messages)")
    let seconds = sub.messages[lockedAt].json?["locked_seconds"] as? Int ?? 0
    #expect((1...2).contains(seconds))
    #expect(sub.messages[lockedAt].json?["attempts_left"] as? Int == 0, "no attempt while locked")
    #expect(
      sub.waitFor("pinpadd/door1/default/event") { $0.json?["type"] as? String == "lockout" } != nil
    )
    let unlocked = sub.waitFor("pinpadd/door1/default/state", after: lockedAt, timeout: 6) {
      $0.json?["phase"] as? String == "idle" && $0.json?["attempts_left"] as? Int == 1
    }
    #expect(unlocked != nil, "\(sub.messages.map(\.payload))")
  }

  @Test(
    "duress (SPEC 9.2): an MQTT verdict's duress reaches the daemon, whose alarm comes back on TOPIC/KEYPAD/event"
  )
  func duressAlarm() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, dir: dir)
    let door = try Self.device(broker, dir: dir)
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil)
    let watcher = try door.daemon.connect()
    door.daemon.type("1357\r")
    let id = try #require(sub.waitFor("pinpadd/door1/default/code")?.json?["id"] as? String)
    try broker.publish(
      "pinpadd/door1/default/verdict", #"{"id":"\#(id)","result":"granted","duress":true}"#)
    let alarm = try watcher.waitFor("alarm", timeout: 10)
    #expect(alarm?.message.string("id") == id)
    let event = sub.waitFor("pinpadd/door1/default/event") {
      $0.json?["type"] as? String == "alarm"
    }
    #expect(event?.json?["reason"] as? String == "duress")
    #expect(event?.json?["keypad"] as? String == "default")
    #expect(event?.json?["id"] as? String == id)
    #expect(event?.retained == false)
    #expect(try broker.retained("pinpadd/door1/default/event").isEmpty)
  }

  @Test("SIGKILL of the bridge: the broker publishes the retained last will offline")
  func lastWill() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/door1/status", dir: dir)
    let door = try Self.device(broker, dir: dir)
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil)
    door.bridge.kill(SIGKILL)
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "offline" } != nil)
    #expect(try broker.retained("pinpadd/door1/status").map(\.payload) == ["offline"])
  }

  @Test("SIGTERM: the bridge publishes offline (retained) itself and exits 0")
  func cleanStop() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/door1/status", dir: dir)
    let door = try Self.device(broker, dir: dir)
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil)
    door.bridge.kill(SIGTERM)
    #expect(door.bridge.process.terminationStatus == 0, "\(door.bridge.log)")
    #expect(try broker.retained("pinpadd/door1/status").map(\.payload) == ["offline"])
  }

  @Test(
    "broker gone: the bridge leaves the daemon at once (the screen says unavailable); broker back: both reconnect and codes flow again"
  )
  func brokerRestart() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let door = try Self.device(broker, dir: dir, config: "[Socket]\nDeliveryTimeoutSec=1\n")
    #expect(E2E.waitUntil(timeout: 10) { door.daemon.clients() == 1 }, "\(door.bridge.log)")
    broker.kill()
    #expect(E2E.waitUntil(timeout: 5) { door.daemon.clients() == 0 }, "\(door.bridge.log)")
    // A code typed now finds no controller: "unavailable" after DeliveryTimeoutSec,
    // not a wait for a verdict that cannot come.
    door.daemon.type("1357\r")
    #expect(
      E2E.waitUntil(timeout: 5) { door.daemon.log.contains("no controller took it") },
      "\(door.daemon.log)")
    try broker.start()
    let sub = try Subscriber(broker, dir: dir)
    #expect(
      E2E.waitUntil(timeout: 15) { door.daemon.clients() == 1 }, "\(door.bridge.log)")
    #expect(sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil)
    door.daemon.type("8080\r")
    let code = sub.waitFor("pinpadd/door1/default/code")
    #expect(code?.json?["code"] as? String == "8080", "\(door.bridge.log)")
    #expect(door.bridge.log.contains("lost the connection"))
    #expect(door.bridge.isRunning)
    // The code typed during the outage was never queued for the new connection.
    E2E.sleep(0.5)
    #expect(!sub.messages.contains { shows("1357", in: $0.payload) })
  }

  @Test("daemon gone: TOPIC/status goes offline (retained); daemon back: online again")
  func daemonRestart() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/door1/status", dir: dir)
    var door: Device? = try Self.device(broker, dir: dir)
    let bridge = door!.bridge
    let online = try #require(sub.waitForIndex("pinpadd/door1/status") { $0.payload == "online" })
    door = nil  // SIGKILLs the daemon; the bridge stays
    let offline = try #require(
      sub.waitForIndex("pinpadd/door1/status", after: online) { $0.payload == "offline" },
      "\(bridge.log)")
    #expect(try broker.retained("pinpadd/door1/status").map(\.payload) == ["offline"])
    #expect(bridge.isRunning)
    let again = try TypedDaemon(
      config: mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/door1"),
      dir: dir)
    _ = again
    #expect(
      sub.waitForIndex("pinpadd/door1/status", after: offline) { $0.payload == "online" } != nil,
      "\(bridge.log)")
  }

  @Test("pinpadctl mqtt --help lists the topics and exits 0")
  func help() throws {
    let done = try runProgram(E2E.pinpadctl, ["mqtt", "--help"])
    #expect(done.status == 0)
    for topic in [
      "TOPIC/status", "TOPIC/KEYPAD/code", "TOPIC/KEYPAD/event", "TOPIC/KEYPAD/state",
      "TOPIC/KEYPAD/verdict",
    ] {
      #expect(done.stdout.contains(topic))
    }
  }

  @Test(
    "a verdict for an id the bridge never sent is refused by the bridge itself; a second verdict for a decided one gets the daemon's error, logged"
  )
  func unknownVerdict() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/door1/+/code", dir: dir)
    let door = try Self.device(broker, dir: dir)
    #expect(E2E.waitUntil(timeout: 10) { door.daemon.clients() == 1 }, "\(door.bridge.log)")
    try broker.publish("pinpadd/door1/default/verdict", #"{"id":"nope-1","result":"granted"}"#)
    try broker.publish("pinpadd/door1/default/verdict", #"not json"#)
    #expect(
      E2E.waitUntil(timeout: 5) { door.bridge.log.contains("not a JSON object") },
      "\(door.bridge.log)")
    #expect(door.bridge.log.contains("the verdict's id is not a code this bridge sent lately"))
    door.daemon.type("2468\r")
    let id = try #require(sub.waitFor("pinpadd/door1/default/code")?.json?["id"] as? String)
    for _ in 0..<2 {
      try broker.publish("pinpadd/door1/default/verdict", #"{"id":"\#(id)","result":"denied"}"#)
    }
    #expect(
      E2E.waitUntil(timeout: 5) { door.bridge.log.contains("the daemon says") },
      "\(door.bridge.log)")
    #expect(!door.bridge.log.contains(id))
    #expect(door.bridge.isRunning)
  }

  @Test(
    "Home Assistant discovery: retained configs, valid JSON, unique ids, availability from TOPIC/status"
  )
  func discovery() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/+/status", dir: dir)
    let one = try Self.device(broker, topic: "pinpadd/door1", dir: dir, name: "one")
    let two = try Self.device(broker, topic: "pinpadd/door2", dir: dir, name: "two")
    #expect(
      sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil, "\(one.bridge.log)")
    #expect(
      sub.waitFor("pinpadd/door2/status") { $0.payload == "online" } != nil, "\(two.bridge.log)")
    E2E.sleep(0.5)
    let configs = try broker.retained("homeassistant/#")
    #expect(configs.count == 4, "\(configs.map(\.topic))")
    var ids: [String] = []
    for config in configs {
      #expect(config.retained)
      let json = try #require(config.json, "not JSON: \(config.payload)")
      let id = try #require(json["unique_id"] as? String)
      ids.append(id)
      let door = config.topic.contains("door1") ? "pinpadd/door1" : "pinpadd/door2"
      #expect(json["availability_topic"] as? String == "\(door)/status")
      #expect(json["payload_available"] as? String == "online")
      #expect(json["payload_not_available"] as? String == "offline")
      #expect((json["state_topic"] as? String)?.hasPrefix("\(door)/default/") == true)
      let device = try #require(json["device"] as? [String: Any])
      #expect((device["identifiers"] as? [String])?.count == 1)
      if config.topic.hasPrefix("homeassistant/event/") {
        #expect((json["event_types"] as? [String])?.contains("granted") == true)
      } else {
        #expect(config.topic.hasPrefix("homeassistant/sensor/"))
      }
    }
    #expect(Set(ids).count == 4, "\(ids)")
  }

  @Test("Discovery=no publishes no discovery config")
  func discoveryOff() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, "pinpadd/door1/status", dir: dir)
    let door = try Self.device(broker, extra: ["Discovery=no"], dir: dir)
    #expect(
      sub.waitFor("pinpadd/door1/status") { $0.payload == "online" } != nil, "\(door.bridge.log)")
    E2E.sleep(0.5)
    #expect(try broker.retained("homeassistant/#").isEmpty)
    #expect(try broker.retained("pinpadd/door1/default/state").count == 1)
  }
}
