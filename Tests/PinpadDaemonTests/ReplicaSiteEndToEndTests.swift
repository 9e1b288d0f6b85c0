import Foundation
import Glibc
import PinpadControlCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// A site with two doors that decide by themselves (docs/protocol.md, "Replica";
/// docs/site.md): `pinpadctl serve --mqtt --sign-key` sends each door
/// its signed replica, each door's bridge (`Decide=local`) decides from it with the
/// broker there or gone, and the site's access log gets each local decision once.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct ReplicaSiteEndToEndTests {
  /// A door box: pinpadd on a pty and its bridge in local mode with its own state folder.
  final class Door {
    let name: String
    let daemon: TypedDaemon
    var bridge: Background
    let state: String
    let watcher: TestClient

    init(_ name: String, broker: Broker, siteKey: String, dir: TempDir) throws {
      self.name = name
      state = dir.file("\(name)-bridge-state")
      let conf =
        "[Socket]\nVerdictTimeoutSec=5\n"
        + mqttSection(
          broker: "mqtt://127.0.0.1:\(broker.port)", topic: "pinpadd/\(name)",
          extra: ["Decide=local", "SiteKey=\(siteKey)"])
      daemon = try TypedDaemon(config: conf, dir: dir, name: name)
      bridge = try Door.startBridge(daemon, state: state, dir: dir, name: name)
      watcher = try daemon.connect()
    }

    static func startBridge(_ daemon: TypedDaemon, state: String, dir: TempDir, name: String) throws
      -> Background
    {
      try Background(
        E2E.pinpadctl,
        [
          "--socket", daemon.socket, "mqtt", "--config", daemon.configPath, "--state-dir", state,
        ], dir: dir, name: "bridge-\(name)")
    }

    func restartBridge(dir: TempDir) throws {
      bridge.kill(SIGKILL)
      bridge = try Door.startBridge(daemon, state: state, dir: dir, name: name)
      // It decides once it is the daemon's client (beside the watcher).
      _ = E2E.waitUntil(timeout: 10) { (daemon.clients() ?? 0) >= 2 }
    }

    /// Types `code` and returns the verdict's result and reason.
    func enter(_ code: String, timeout: Double = 20) throws -> (result: String?, reason: String?) {
      daemon.type(code + "\r")
      guard let sent = try watcher.waitFor("code", timeout: timeout),
        let id = sent.message.string("id")
      else { return (nil, "no code message: \(bridge.log)") }
      let verdict = try watcher.waitFor("verdict", timeout: timeout) { $0.string("id") == id }
      return (verdict?.message.string("result"), verdict?.message.string("reason"))
    }
  }

  /// What a test may look for codes in: every message but the replicas (their lines hold
  /// hashes and generations, numbers that may hold a code's digits by chance), with
  /// generations taken out.
  static func visible(_ messages: [MQTTMessage]) -> [String] {
    messages.filter { !$0.topic.hasSuffix("/replica") }.map {
      $0.topic + " "
        + $0.payload.replacingOccurrences(
          of: #""generation":[0-9]+"#, with: #""generation":N"#, options: .regularExpression)
    }
  }

  /// `serve --mqtt --sign-key` for `codes` on `broker`: its arguments and state folder.
  static func siteArguments(_ dir: TempDir, _ broker: Broker, codes: String, key: String)
    -> (arguments: [String], state: String)
  {
    let state = dir.file("site-state")
    let config = dir.write(
      "controller.conf",
      mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "site/controller"))
    return (
      [
        "serve", "--state-dir", state, "--codes", codes, "--mqtt", "--config", config,
        "--sign-key", key,
      ], state
    )
  }

  @Test(
    "two doors decide from their replicas online and with the broker gone; a uses= line is unavailable offline; revocations while connected and across a partition reach them; the site logs each local decision once"
  )
  func twoDoorsAndASite() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let everything = try Subscriber(broker, "#", dir: dir)
    let (key, siteKey) = try SiteReplicaEndToEndTests.keys(dir)
    let pub = dir.file("site.pub")
    let replicas1 = try SiteReplicaEndToEndTests.Replicas(broker, "pinpadd/door1/replica", dir: dir)
    let replicas2 = try SiteReplicaEndToEndTests.Replicas(broker, "pinpadd/door2/replica", dir: dir)
    let alice = try AccessControlEndToEndTests.hash(["alice"], "2468\n")
    let bob = try AccessControlEndToEndTests.hash(["bob"], "1357\n") + ":doors=door2/*"
    let carol = try AccessControlEndToEndTests.hash(["carol"], "9753\n") + ":uses=5"
    let dave = try AccessControlEndToEndTests.hash(["dave"], "3579\n") + ":doors=door1/*"
    let codes = ControllerEndToEndTests.writeCodes(
      dir, [alice, bob, carol, dave].joined(separator: "\n") + "\n")
    let (arguments, state) = Self.siteArguments(dir, broker, codes: codes, key: key)
    let site = try Background(E2E.pinpadctl, arguments, dir: dir, name: "serve")
    let door1 = try Door("door1", broker: broker, siteKey: pub, dir: dir)
    let door2 = try Door("door2", broker: broker, siteKey: pub, dir: dir)

    // Each door gets a retained replica with its own people only.
    let names = SiteReplicaEndToEndTests.names
    let replica1 = replicas1.waitFor(siteKey) { names($0) == ["alice", "carol", "dave"] }
    #expect(replica1 != nil, "bob's line opens door2 only: \(site.log)")
    #expect(replicas2.waitFor(siteKey) { names($0) == ["alice", "bob", "carol"] } != nil)
    #expect(try broker.retained("pinpadd/door1/replica").count == 1)
    #expect(try broker.retained("pinpadd/site/status").map(\.payload) == ["online"])

    // Online.
    #expect(try door1.enter("2468").result == "granted", "\(door1.bridge.log)")
    #expect(try door1.enter("1357").result == "denied")
    #expect(try door2.enter("1357").result == "granted", "\(door2.bridge.log)")

    // Revoked while connected: dave's line goes, and door1 denies him once it holds the
    // replica without him (it says so on its retained state).
    let states = try Subscriber(broker, "pinpadd/door1/replica/state", dir: dir)
    #expect(try door1.enter("3579").result == "granted")
    _ = ControllerEndToEndTests.writeCodes(dir, [alice, bob, carol].joined(separator: "\n") + "\n")
    #expect(
      states.waitFor("pinpadd/door1/replica/state", timeout: 10) {
        ($0.json?["people"] as? NSNumber)?.intValue == 2
      } != nil, "\(site.log) \(door1.bridge.log)")
    #expect(try door1.enter("3579").result == "denied")

    // The broker gone: both doors still decide.
    broker.kill()
    #expect(try door1.enter("2468").result == "granted", "\(door1.bridge.log)")
    #expect(try door2.enter("2468").result == "granted", "\(door2.bridge.log)")
    #expect(try door2.enter("8642").result == "denied")
    let counted = try door1.enter("9753")
    #expect(counted.result == "denied")
    #expect(counted.reason == "unavailable", "a uses= line is spent by the site alone")

    // A bridge restarted with no broker decides from the replica it kept.
    try door1.restartBridge(dir: dir)
    #expect(try door1.enter("2468").result == "granted", "\(door1.bridge.log)")

    // Alice removed while the broker is down; the broker back: her code is denied at
    // both doors once their new replicas are in.
    let held = replica1?.generation ?? 0
    let withoutAlice = [bob, carol].joined(separator: "\n") + "\n"
    _ = ControllerEndToEndTests.writeCodes(dir, withoutAlice)
    try broker.start()
    let later = try Subscriber(broker, "#", dir: dir)
    let after = try SiteReplicaEndToEndTests.Replicas(broker, "pinpadd/door1/replica", dir: dir)
    let fresh = after.waitFor(siteKey, timeout: 30) {
      $0.generation > held && names($0) == ["carol"]
    }
    #expect(fresh != nil, "no replica without alice: \(site.log)")
    // Each door says what it holds on its retained replica/state: alice is gone.
    for (door, people) in [("door1", 1), ("door2", 2)] {
      let taken = later.waitFor("pinpadd/\(door)/replica/state", timeout: 30) {
        ($0.json?["people"] as? NSNumber)?.intValue == people
      }
      #expect(taken != nil, "\(door) did not take the new replica")
    }
    #expect(try door1.enter("2468").result == "denied", "\(door1.bridge.log)")
    #expect(try door2.enter("2468").result == "denied", "\(door2.bridge.log)")

    // The site's log gets every local decision of both doors, each once.
    var rows: [[String: Any]] = []
    let settled = E2E.waitUntil(timeout: 30) {
      guard let run = try? runProgram(E2E.pinpadctl, ["log", "--json", "--state-dir", state]) else {
        return false
      }
      rows = run.stdout.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }.filter { $0["decided"] as? String == "local" }
      // door1: 2468, 1357, 3579, 3579, 2468, 9753, 2468, 2468 and door2: 1357, 2468,
      // 8642, 2468 (the last one of each may still be on its way when first looked at).
      return rows.count >= 12
    }
    #expect(settled, "\(rows) \(site.log)")
    let perDoor = Dictionary(grouping: rows) { $0["device"] as? String ?? "?" }
    #expect(perDoor["door1"]?.count == 8, "\(perDoor)")
    #expect(perDoor["door2"]?.count == 4, "\(perDoor) \(door2.bridge.log) \(site.log)")
    #expect(perDoor["door1"]?.contains { $0["reason"] as? String == "unavailable" } == true)

    // No digit of a code on any topic in local mode.
    for code in ["2468", "1357", "8642", "9753", "3579"] {
      let seen = Self.visible(everything.messages + later.messages)
      #expect(!seen.contains { shows(code, in: $0) }, "\(code) on the broker")
      #expect(!shows(code, in: site.log) && !shows(code, in: door1.bridge.log))
    }
  }
}

/// The door's log reaches the site exactly once (docs/protocol.md, "Replica: the door's
/// log"), whatever is killed when.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct ReplicaLogExactlyOnceEndToEndTests {
  @Test(
    "500 local decisions while the site and the bridge are killed -9 and the broker restarts twice: the site holds each exactly once"
  )
  func exactlyOnce() throws {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let (key, _) = try SiteReplicaEndToEndTests.keys(dir)
    let pub = dir.file("site.pub")
    let alice = try AccessControlEndToEndTests.hash(["alice"], "2468\n")
    let codes = ControllerEndToEndTests.writeCodes(dir, alice + "\n")
    let (siteArguments, state) = ReplicaSiteEndToEndTests.siteArguments(
      dir, broker, codes: codes, key: key)
    var site = try Background(E2E.pinpadctl, siteArguments, dir: dir, name: "serve")
    let door = try ReplicaSiteEndToEndTests.Door("door1", broker: broker, siteKey: pub, dir: dir)
    let watch = try Subscriber(broker, "pinpadd/door1/replica/state", dir: dir)
    #expect(
      watch.waitFor("pinpadd/door1/replica/state", timeout: 30) {
        ($0.json?["people"] as? NSNumber)?.intValue == 1
      } != nil, "\(door.bridge.log) \(site.log)")

    // What happens when: (decision number, what).
    var generator = SystemRandomNumberGenerator()
    var events: [Int: String] = [:]
    for what in [
      "kill site", "kill site", "kill bridge", "kill bridge", "restart broker", "restart broker",
    ] {
      var at = Int.random(in: 20..<480, using: &generator)
      while events[at] != nil { at += 1 }
      events[at] = what
    }
    var granted = 0
    for n in 0..<500 {
      switch events[n] {
      case "kill site"?:
        site.kill(SIGKILL)
        site = try Background(E2E.pinpadctl, siteArguments, dir: dir, name: "serve-\(n)")
      case "kill bridge"?:
        try door.restartBridge(dir: dir)
      case "restart broker"?:
        broker.kill()
        try broker.start()
      default: break
      }
      if (try? door.enter(n % 7 == 0 ? "1111" : "2468", timeout: 10).result) == "granted" {
        granted += 1
      }
    }
    // Everything reaches the site: every grant the daemon saw (nobody but the bridge
    // answers, and it logs before it answers) is a row there, and the door's latest state
    // has nothing pending. (Not the state alone: the last decision's entry is sent after
    // its verdict, so a state saying 0 may come before it.)
    var rows: [[String: Any]] = []
    var grantedRows = 0
    let complete = E2E.waitUntil(timeout: 60) {
      guard let run = try? runProgram(E2E.pinpadctl, ["log", "--json", "--state-dir", state])
      else { return false }
      rows = run.stdout.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }.filter { $0["decided"] as? String == "local" && $0["device"] as? String == "door1" }
      grantedRows = rows.filter { $0["result"] as? String == "granted" }.count
      let states = watch.messages.filter { $0.topic == "pinpadd/door1/replica/state" }
      return grantedRows >= granted
        && (states.last?.json?["log_pending"] as? NSNumber)?.intValue == 0
    }
    #expect(complete, "\(grantedRows) granted rows for \(granted) grants seen: \(door.bridge.log)")
    let seqs = rows.compactMap { ($0["seq"] as? NSNumber)?.intValue }
    #expect(seqs.count == rows.count)
    #expect(Set(seqs).count == seqs.count, "a row twice")
    #expect(Set(seqs) == Set(1...max(1, seqs.max() ?? 0)), "a row lost")
    #expect(granted > 300, "\(granted) grants of 500 codes")
    for row in rows { #expect(!shows("2468", in: "\(row)") && !shows("1111", in: "\(row)")) }
  }
}
