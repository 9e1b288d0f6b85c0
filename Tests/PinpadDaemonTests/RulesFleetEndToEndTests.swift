import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// The fleet controller's use counters (docs/protocol.md, "Codes file: options";
/// issue 22): two devices presenting a `uses=1` code at the same moment get exactly one
/// grant.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct RulesFleetEndToEndTests {
  static func controller(_ broker: Broker, _ dir: TempDir, _ codes: String) throws -> Background {
    let config = dir.write(
      "controller.conf",
      mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "site/controller"))
    let controller = try Background(
      E2E.pinpadctl,
      ["serve", "--state-dir", dir.file("state"), "--codes", codes, "--mqtt", "--config", config],
      dir: dir, name: "serve")
    #expect(
      E2E.waitUntil(timeout: 10) { controller.log.contains("connected to") }, "\(controller.log)")
    return controller
  }

  @Test("two daemons and two bridges typing a uses=1 code at once: one grant, one used_up")
  func twoDevicesRace() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let pins = ["1357", "2468", "3579"]
    var lines: [String] = []
    for (n, pin) in pins.enumerated() {
      lines.append(try AccessControlEndToEndTests.hash(["guest\(n)", "--uses", "1"], pin + "\n"))
    }
    let codes = ControllerEndToEndTests.writeCodes(dir, lines.joined(separator: "\n") + "\n")
    let controller = try Self.controller(broker, dir, codes)
    let status = try Subscriber(broker, "pinpadd/+/status", dir: dir)
    let devices = try (1...2).map {
      try MQTTBridgeEndToEndTests.device(
        broker, topic: "pinpadd/door\($0)", dir: dir, name: "door\($0)")
    }
    for n in 1...2 {
      #expect(status.waitFor("pinpadd/door\(n)/status") { $0.payload == "online" } != nil)
    }
    let watchers = try devices.map { try $0.daemon.connect() }
    for pin in pins {
      for device in devices { device.daemon.type(pin + "\r") }
      var results: [String] = []
      for watcher in watchers {
        let code = try #require(try watcher.waitFor("code", timeout: 10))
        let id = try #require(code.message.string("id"))
        let verdict = try #require(
          try watcher.waitFor("verdict", timeout: 20) { $0.string("id") == id },
          "\(controller.log)")
        results.append(
          (verdict.message.string("result") ?? "?") + "/"
            + (verdict.message.string("reason") ?? "-"))
      }
      #expect(results.sorted() == ["denied/used_up", "granted/-"], "\(results)")
    }

    let run = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", dir.file("state"), "--json"], input: "")
    let rows = run.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(rows.count == 6, "\(run.stdout)")
    #expect(Set(rows.compactMap { $0["device"] as? String }) == ["door1", "door2"])
    #expect(rows.filter { $0["result"] as? String == "granted" }.count == 3)
    for pin in pins { #expect(!shows(pin, in: controller.log)) }
  }

  @Test(
    "a retained code is never decided, across restarts or live; a repeated id gets its verdict again without a use or a row"
  )
  func retainedAndRepeatedCodes() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let line = try AccessControlEndToEndTests.hash(["guest", "--uses", "1"], "1357\n")
    let codes = ControllerEndToEndTests.writeCodes(dir, line + "\n")
    func code(_ id: String) -> String {
      #"{"type":"code","id":"\#(id)","keypad":"front","code":"1357"}"#
    }
    let topic = "pinpadd/door1/front/code"
    // Left retained before the controller starts, then three starts of it.
    try broker.publish(topic, code("r1"), retain: true)
    let verdicts = try Subscriber(broker, "pinpadd/+/+/verdict", dir: dir)
    var controller = try Self.controller(broker, dir, codes)
    for _ in 0..<2 {
      controller.kill(SIGTERM)
      #expect(controller.exitStatus(within: 10) == 0, "\(controller.log)")
      controller = try Self.controller(broker, dir, codes)
    }
    // Published retained while the controller listens: delivered with its flag, refused.
    // (Again each second: the first may come before the controller's subscription.)
    #expect(
      E2E.waitUntil(timeout: 10) {
        try? broker.publish(topic, code("r2"), retain: true)
        return E2E.waitUntil(timeout: 1) { controller.log.contains("a retained code message") }
      }, "\(controller.log)")
    // A live code, then the same message again (a QoS 1 duplicate, a replay).
    try broker.publish(topic, code("n1"))
    #expect(verdicts.waitFor("pinpadd/door1/front/verdict") != nil, "\(controller.log)")
    try broker.publish(topic, code("n1"))
    #expect(
      E2E.waitUntil(timeout: 10) { verdicts.messages.count >= 2 }, "\(controller.log)")
    try broker.publish(topic, code("n2"))
    #expect(
      E2E.waitUntil(timeout: 10) { verdicts.messages.count >= 3 }, "\(controller.log)")
    E2E.sleep(0.5)  // nothing more may come
    let answers = verdicts.messages.map {
      ($0.json?["id"] as? String ?? "?") + ":" + ($0.json?["result"] as? String ?? "?") + "/"
        + ($0.json?["reason"] as? String ?? "-")
    }
    #expect(answers == ["n1:granted/-", "n1:granted/-", "n2:denied/used_up"], "\(controller.log)")
    controller.kill(SIGTERM)
    _ = controller.exitStatus(within: 10)
    let run = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", dir.file("state"), "--json"], input: "")
    let ids = run.stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
    }
    #expect(ids == ["n1", "n2"], "\(run.stdout)")
    #expect(controller.log.contains("attempt n1 was decided before"), "\(controller.log)")
    #expect(!shows("1357", in: controller.log))
  }

  @Test("ten uses=1 codes, each published by two devices at once: exactly one grant each")
  func publishedPairsRace() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let pins = (0..<10).map { String(format: "%04d", 1000 + $0 * 37) }
    // Hashed in two processes at a time: each `hash` spends ~30 ms of yescrypt.
    let made = LockedLines(count: pins.count)
    DispatchQueue.concurrentPerform(iterations: pins.count) { n in
      made.set(
        n, (try? AccessControlEndToEndTests.hash(["g\(n)", "--uses", "1"], pins[n] + "\n")) ?? "")
    }
    let lines = made.lines
    let codes = ControllerEndToEndTests.writeCodes(dir, lines.joined(separator: "\n") + "\n")
    let controller = try Self.controller(broker, dir, codes)
    let verdicts = try Subscriber(broker, "pinpadd/+/+/verdict", dir: dir)
    // A keypad per code: the controller's lockout would answer the later ones unchecked.
    for (n, pin) in pins.enumerated() {
      for device in ["a", "b"] {
        try broker.publish(
          "pinpadd/\(device)/k\(n)/code",
          #"{"type":"code","id":"\#(device)\#(n)","keypad":"k\#(n)","code":"\#(pin)"}"#)
      }
    }
    #expect(
      E2E.waitUntil(timeout: 30) { verdicts.messages.count >= 2 * pins.count },
      "\(verdicts.messages.count) verdicts: \(controller.log)")
    var granted: [Int: Int] = [:]
    for message in verdicts.messages {
      guard let id = message.json?["id"] as? String, let n = Int(id.dropFirst()) else { continue }
      if message.json?["result"] as? String == "granted" {
        granted[n, default: 0] += 1
      } else {
        #expect(message.json?["reason"] as? String == "used_up", "\(message.payload)")
      }
    }
    #expect(granted == Dictionary(uniqueKeysWithValues: pins.indices.map { ($0, 1) }))
  }
}

final class LockedLines: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [String]
  init(count: Int) { storage = Array(repeating: "", count: count) }
  func set(_ index: Int, _ line: String) {
    lock.lock()
    storage[index] = line
    lock.unlock()
  }
  var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }
}
