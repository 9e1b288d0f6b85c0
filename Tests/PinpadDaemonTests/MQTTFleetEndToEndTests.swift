import Foundation
import Glibc
import Testing

/// `pinpadctl serve --codes FILE --mqtt`: one controller for every device on a broker.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct MQTTFleetEndToEndTests {
  @Test(
    "three daemons, three bridges, one serve --mqtt: each code is answered to the device it came from"
  )
  func fleet() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let hashed = try runProgram(E2E.pinpadctl, ["hash", "alice"], input: "2468\n", timeout: 30)
    let codes = dir.write("codes", hashed.stdout)
    let controllerConfig = dir.write(
      "controller.conf",
      mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "site/controller"))
    let controller = try Background(
      E2E.pinpadctl, ["serve", "--codes", codes, "--mqtt", "--config", controllerConfig], dir: dir,
      name: "serve")
    var devices: [MQTTBridgeEndToEndTests.Device] = []
    let sub = try Subscriber(broker, "pinpadd/+/status", dir: dir)
    for n in 1...3 {
      devices.append(
        try MQTTBridgeEndToEndTests.device(
          broker, topic: "pinpadd/door\(n)", dir: dir, name: "door\(n)"))
    }
    for n in 1...3 {
      #expect(
        sub.waitFor("pinpadd/door\(n)/status") { $0.payload == "online" } != nil,
        "\(devices[n - 1].bridge.log)")
    }
    #expect(
      E2E.waitUntil(timeout: 10) { controller.log.contains("connected to") }, "\(controller.log)")
    let watchers = try devices.map { try $0.daemon.connect() }
    let typed = ["2468", "1357", "2468"]
    let expected = ["granted", "denied", "granted"]
    for (device, code) in zip(devices, typed) { device.daemon.type(code + "\r") }
    for (n, watcher) in watchers.enumerated() {
      let code = try #require(try watcher.waitFor("code", timeout: 10), "door\(n + 1): no code")
      let id = try #require(code.message.string("id"))
      let verdict = try watcher.waitFor("verdict", timeout: 20) { $0.string("id") == id }
      #expect(verdict?.message.string("result") == expected[n], "door\(n + 1): \(controller.log)")
      // Only this device's own verdict reached it.
      #expect(verdict?.before.contains { $0["type"] as? String == "verdict" } == false)
    }
    #expect(controller.log.contains("(alice)"))
    for code in typed { #expect(!controller.log.contains(code), "a code in the controller's log") }
    #expect(try broker.retained("pinpadd/+/+/verdict").isEmpty)
  }

  @Test("--topics must be a filter ending in /+/code (exit 64); --topics narrows what is answered")
  func topicsFilter() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let codes = dir.write("codes", "")
    let config = dir.write(
      "c.conf", mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "site/controller"))
    let bad = try runProgram(
      E2E.pinpadctl,
      ["serve", "--codes", codes, "--mqtt", "--topics", "pinpadd/#", "--config", config])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("must end in /+/code"))

    let controller = try Background(
      E2E.pinpadctl,
      ["serve", "--codes", codes, "--mqtt", "--topics", "lobby/+/+/code", "--config", config],
      dir: dir, name: "serve")
    #expect(
      E2E.waitUntil(timeout: 10) { controller.log.contains("connected to") }, "\(controller.log)")
    let verdicts = try Subscriber(broker, "+/+/+/verdict", dir: dir)
    try broker.publish(
      "lobby/d1/main/code", #"{"type":"code","id":"l-1","keypad":"main","code":"1234"}"#)
    try broker.publish(
      "pinpadd/d1/main/code", #"{"type":"code","id":"p-1","keypad":"main","code":"1234"}"#)
    let answer = verdicts.waitFor("lobby/d1/main/verdict")
    #expect(answer?.json?["id"] as? String == "l-1")
    #expect(answer?.json?["result"] as? String == "denied")
    E2E.sleep(0.5)
    #expect(!verdicts.messages.contains { $0.topic.hasPrefix("pinpadd/") })
  }
}
