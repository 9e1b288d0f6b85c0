import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// The bridge's door topics (docs/protocol.md, "MQTT: door topics") against a real
/// Mosquitto on loopback. The daemon's side is a scripted peer on a real Unix socket (no
/// GPIO chip exists on the host; the daemon's own door handling runs on a real kernel in
/// tests/system): it greets, answers `status` with a door, records each line it is sent,
/// and answers an `open` with a `door` event and an unlocked state.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct MQTTDoorEndToEndTests {
  static let peer = #"""
    import json, os, socket, sys
    path, record = sys.argv[1], sys.argv[2]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)
    lock = "locked"
    while True:
        conn, _ = server.accept()
        conn.sendall(b'{"type":"hello","protocol":1,"version":"9.9.9"}\n')
        buffer = b""
        while True:
            data = conn.recv(4096)
            if not data:
                break
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                with open(record, "a") as f:
                    f.write(line.decode() + "\n")
                message = json.loads(line)
                if message.get("type") == "open" and message.get("door") == "front":
                    lock = "unlocked"
                    conn.sendall(b'{"type":"door","door":"front","event":"unlocked","by":"remote"}\n')
                elif message.get("type") == "status":
                    status = {"type": "status", "keypads": [], "doors": [
                        {"name": "front", "lock": lock, "contact": "closed", "forced": False, "lines": "ok"}]}
                    conn.sendall(json.dumps(status).encode() + b"\n")
    """#

  @Test(
    "door state retained, discovery of a lock and a door sensor, open on the command topic reaches the daemon, its event comes back"
  )
  func doorRoundTrip() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let sub = try Subscriber(broker, dir: dir)
    let socket = dir.file("d.sock")
    let record = dir.write("lines.txt", "")
    let peer = try Background(
      "/usr/bin/python3", ["-c", Self.peer, socket, record], dir: dir, name: "peer")
    #expect(E2E.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: socket) })
    let config = dir.write(
      "c.conf",
      mqttSection(
        broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/site", extra: ["Discovery=yes"]))
    let bridge = try Background(
      E2E.pinpadctl, ["--socket", socket, "mqtt", "--config", config], dir: dir, name: "bridge")

    let state = sub.waitFor("pinpadd/site/door/front/state")
    #expect(state != nil, "\(bridge.log)")
    #expect(state?.json?["lock"] as? String == "locked")
    #expect(state?.json?["contact"] as? String == "closed")
    let lock = sub.waitFor("homeassistant/lock/pinpadd_site/door_front/config")
    #expect(try broker.retained("homeassistant/lock/pinpadd_site/door_front/config").count == 1)
    #expect(lock?.json?["command_topic"] as? String == "pinpadd/site/door/front/command")
    #expect(
      sub.waitFor("homeassistant/binary_sensor/pinpadd_site/door_front_contact/config") != nil)
    // Retained: a client that subscribes later still gets the state (live copies carry
    // no retain flag).
    #expect(
      try broker.retained("pinpadd/site/door/front/state").first?.json?["lock"] as? String
        == "locked")

    try broker.publish("pinpadd/site/door/front/command", "lock")  // refused: not a command
    try broker.publish("pinpadd/site/door/front/command", "open")
    let event = sub.waitFor("pinpadd/site/door/front/event")
    #expect(event?.retained == false)
    #expect(event?.json?["by"] as? String == "remote")
    let lines = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
    #expect(lines.contains(#"{"type":"open","door":"front"}"#), "\(lines)")
    #expect(!lines.contains("lock\""), "a lock command reached the daemon")
    let unlocked = sub.waitFor("pinpadd/site/door/front/state") {
      $0.json?["lock"] as? String == "unlocked"
    }
    #expect(unlocked != nil)
    #expect(
      try broker.retained("pinpadd/site/door/front/state").first?.json?["lock"] as? String
        == "unlocked")
    #expect(bridge.log.contains("the only door command is open"), "\(bridge.log)")
    bridge.kill(SIGTERM)
    peer.kill(SIGTERM)
  }
}
