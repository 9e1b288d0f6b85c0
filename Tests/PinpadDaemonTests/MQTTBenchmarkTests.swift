import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// Figures for the MQTT bridge (printed, nothing asserted about speed): the verdict
/// round trip through a real Mosquitto on loopback, and the idle bridge's memory and
/// wake-ups. `PINPADD_BENCHMARK=1 swift test --filter MQTTBenchmarkTests`.
@Suite(
  .serialized,
  .enabled(if: Broker.available && ProcessInfo.processInfo.environment["PINPADD_BENCHMARK"] == "1"))
struct MQTTBenchmarkTests {
  @Test("verdict round trip through the broker, 1000 codes; idle RSS and wake-ups of the bridge")
  func roundTrip() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let door = try MQTTBridgeEndToEndTests.device(
      broker, dir: dir, config: "[Lockout]\nMaxFailures=100000\n")
    let watcher = try door.daemon.connect()
    // The controller: mosquitto_sub reads codes, this process answers each at once
    // through mosquitto_pub -l (one message per line).
    let sub = Process()
    sub.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
    sub.arguments = broker.clientArguments + ["-q", "1", "-t", "pinpadd/door1/+/code"]
    let subOut = Pipe()
    sub.standardOutput = subOut
    sub.standardError = FileHandle.nullDevice
    try sub.run()
    let pub = Process()
    pub.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
    pub.arguments =
      broker.clientArguments + ["-q", "1", "-t", "pinpadd/door1/default/verdict", "-l"]
    let pubIn = Pipe()
    pub.standardInput = pubIn
    pub.standardOutput = FileHandle.nullDevice
    pub.standardError = FileHandle.nullDevice
    try pub.run()
    defer {
      // SIGKILL: the test runner's blocked signal mask is inherited, SIGTERM would wait.
      for p in [sub, pub] where p.isRunning {
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
      }
    }
    let reader = subOut.fileHandleForReading
    Thread.detachNewThread {
      var pending = Data()
      while true {
        let chunk = reader.availableData
        if chunk.isEmpty { return }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 0x0A) {
          let line = pending[pending.startIndex..<newline]
          pending.removeSubrange(pending.startIndex...newline)
          guard let json = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let id = json["id"] as? String
          else { continue }
          pubIn.fileHandleForWriting.write(Data("{\"id\":\"\(id)\",\"result\":\"denied\"}\n".utf8))
        }
      }
    }
    E2E.sleep(1)
    var samples: [Double] = []
    for i in 0..<1000 {
      door.daemon.type(String(format: "%04d\r", i))
      guard let code = try watcher.waitFor("code", timeout: 10) else {
        Issue.record("no code \(i)")
        break
      }
      let start = E2E.now()
      let id = code.message.string("id")
      guard try watcher.waitFor("verdict", timeout: 10, where: { $0.string("id") == id }) != nil
      else {
        Issue.record("no verdict \(i)")
        break
      }
      samples.append((E2E.now() - start) * 1000)
    }
    samples.sort()
    func percentile(_ p: Double) -> Double {
      samples[min(samples.count - 1, Int(Double(samples.count) * p))]
    }
    if !samples.isEmpty {
      print(
        String(
          format:
            "mqtt-bench: verdict round trip over %d codes: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
          samples.count, percentile(0.5), percentile(0.99), samples.last!))
    }

    // Idle: no codes for 30 s.
    func status(_ key: String) -> Int {
      let text =
        (try? String(
          contentsOfFile: "/proc/\(door.bridge.process.processIdentifier)/status", encoding: .utf8))
        ?? ""
      let line = text.split(separator: "\n").first { $0.hasPrefix(key + ":") } ?? ""
      return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
        ?? -1
    }
    E2E.sleep(2)
    let before = status("voluntary_ctxt_switches") + status("nonvoluntary_ctxt_switches")
    E2E.sleep(30)
    let after = status("voluntary_ctxt_switches") + status("nonvoluntary_ctxt_switches")
    print(
      "mqtt-bench: idle bridge: VmRSS \(status("VmRSS")) kB, VmHWM \(status("VmHWM")) kB, "
        + String(format: "%.2f wake-ups/s over 30 s", Double(after - before) / 30))
  }

  @Test("peak RSS of the bridge around a 100 MB verdict payload (issue 26.6)")
  func hugeVerdictPeakRSS() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let door = try MQTTBridgeEndToEndTests.device(broker, dir: dir)
    #expect(E2E.waitUntil(timeout: 10) { door.daemon.clients() == 1 }, "\(door.bridge.log)")
    func hwm() -> Int {
      let text =
        (try? String(
          contentsOfFile: "/proc/\(door.bridge.process.processIdentifier)/status", encoding: .utf8))
        ?? ""
      let line = text.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
      return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
        ?? -1
    }
    let before = hwm()
    let payload =
      #"{"id":"x","result":"granted","message":""#
      + String(repeating: "y", count: 100_000_000) + #""}"#
    let file = dir.write("huge.json", payload)
    let started = E2E.now()
    let sent = try runProgram(
      "/usr/bin/mosquitto_pub",
      broker.clientArguments + ["-q", "1", "-t", "pinpadd/door1/default/verdict", "-f", file],
      timeout: 120)
    #expect(sent.status == 0)
    // The bridge is answering again once a status round trip through it works.
    try broker.publish("pinpadd/door1/default/verdict", "not json")
    _ = E2E.waitUntil(timeout: 60) { door.bridge.log.contains("not a JSON object") }
    print(
      "mqtt-bench: 100 MB verdict payload: bridge VmHWM \(before) kB before, \(hwm()) kB after, "
        + String(format: "answering again after %.1f s", E2E.now() - started))
  }
}
