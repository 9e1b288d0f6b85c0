import Foundation
import Glibc
import PinpadControlCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// `pinpadctl serve --mqtt --sign-key KEY` (docs/protocol.md, "Replica"): the signed
/// replica of each device, its generation across restarts, the site's status and last
/// will, and the doors' logs stored once, with a real Mosquitto on loopback.
@Suite(.serialized, .enabled(if: Broker.available, "needs mosquitto and mosquitto-clients"))
struct SiteReplicaEndToEndTests {
  /// A key pair made by the `openssl` command, as docs/protocol.md shows: the private
  /// key's path and the public key.
  static func keys(_ dir: TempDir) throws -> (String, Ed25519PublicKey) {
    let key = dir.file("site.key")
    let made = try runProgram(
      "/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", key], timeout: 30)
    #expect(made.status == 0, "\(made.stderr)")
    chmod(key, 0o600)
    let pub = dir.file("site.pub")
    let out = try runProgram("/usr/bin/openssl", ["pkey", "-in", key, "-pubout", "-out", pub])
    #expect(out.status == 0, "\(out.stderr)")
    return (key, try Ed25519PublicKey(path: pub))
  }

  /// The retained messages on `topic` as a `mosquitto_sub` running for the whole test
  /// sees them, payloads in hex (a replica is several lines).
  final class Replicas {
    let process = Process()
    let output: String
    init(_ broker: Broker, _ topic: String, dir: TempDir) throws {
      output = dir.write("replicas-\(UInt32.random(in: 0...UInt32.max)).txt", "")
      process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
      process.arguments = broker.clientArguments + ["-q", "1", "-t", topic, "-F", "%r\t%x"]
      process.standardOutput = FileHandle(forWritingAtPath: output)
      process.standardError = FileHandle.nullDevice
      try process.run()
      E2E.sleep(0.3)
    }
    deinit {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }

    /// Each message: whether it was retained, and its bytes.
    var messages: [(retained: Bool, bytes: [UInt8])] {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { line in
        let parts = line.split(separator: "\t")
        guard parts.count == 2 else { return nil }
        let hex = Array(parts[1].utf8)
        guard hex.count % 2 == 0 else { return nil }
        let bytes = stride(from: 0, to: hex.count, by: 2).compactMap {
          UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
        return (parts[0] == "1", bytes)
      }
    }

    /// The first replica that parses, verifies with `key` and passes `condition`.
    func waitFor(
      _ key: Ed25519PublicKey, timeout: Double = 20, where condition: (Replica) -> Bool
    ) -> Replica? {
      var found: Replica? = nil
      _ = E2E.waitUntil(timeout: timeout) {
        for message in messages {
          guard case .success(let parsed) = Replica.parse(message.bytes),
            key.verify(parsed.replica.signature, of: parsed.replica.signedBytes),
            condition(parsed.replica)
          else { continue }
          found = parsed.replica
          return true
        }
        return false
      }
      return found
    }
  }

  /// A directory, a broker and the site's keys.
  static func site() throws -> (TempDir, Broker, String, Ed25519PublicKey) {
    let dir = TempDir()
    let broker = try Broker(dir: dir)
    let (key, publicKey) = try keys(dir)
    return (dir, broker, key, publicKey)
  }

  /// `serve --mqtt --sign-key` on `broker` with its state in `dir`.
  static func serveArguments(_ dir: TempDir, _ broker: Broker, codes: String, key: String)
    -> [String]
  {
    let config = dir.write(
      "c.conf", mqttSection(broker: "mqtt://127.0.0.1:\(broker.port)", topic: "site/controller"))
    return [
      "serve", "--state-dir", dir.file("state"), "--codes", codes, "--mqtt", "--sign-key", key,
      "--config", config,
    ]
  }

  /// A site with an empty codes file: its directory, broker and `serve` arguments.
  static func siteWithoutPeople() throws -> (TempDir, Broker, [String]) {
    let (dir, broker, keyPath, _) = try site()
    let codes = ControllerEndToEndTests.writeCodes(dir, "")
    return (dir, broker, serveArguments(dir, broker, codes: codes, key: keyPath))
  }

  /// `serve` started, once it is connected to the broker.
  static func started(_ arguments: [String], _ dir: TempDir, _ name: String) throws -> Background {
    let serve = try Background(E2E.pinpadctl, arguments, dir: dir, name: name)
    #expect(E2E.waitUntil(timeout: 15) { serve.log.contains("connected to") }, "\(serve.log)")
    return serve
  }

  static func names(_ replica: Replica) -> [String] {
    replica.lines.map { String(decoding: $0.prefix { $0 != 0x3A }, as: UTF8.self) }
  }

  @Test(
    "a device's replica is signed, holds its lines only, follows the codes file, and its generation grows across restarts; site status and will"
  )
  func replicas() throws {
    let (dir, broker, keyPath, publicKey) = try Self.site()
    // With the key beside the codes file (hash makes it): the lines have tags, and the
    // replica carries the key.
    let codes = ControllerEndToEndTests.writeCodes(dir, "")
    func hash(_ name: String, _ pin: String) throws -> String {
      try AccessControlEndToEndTests.hash([name, "--codes", codes], pin + "\n")
    }
    let alice = try hash("alice", "2468")
    let bob = try hash("bob", "1357") + ",doors=door1/front"
    let carol = try hash("carol", "9753") + ",doors=door2/*"
    #expect(alice.contains(":tag="))
    _ = ControllerEndToEndTests.writeCodes(dir, [alice, bob, carol, ""].joined(separator: "\n"))
    let tagKey = CodeTagKey.keyBytes(
      file: try Array(Data(contentsOf: URL(fileURLWithPath: codes + ".key"))))
    let arguments = Self.serveArguments(dir, broker, codes: codes, key: keyPath)
    let status = try Subscriber(broker, SiteTopics.siteStatus, dir: dir)
    var serve = try Background(E2E.pinpadctl, arguments, dir: dir, name: "serve")
    #expect(
      status.waitFor(SiteTopics.siteStatus) { $0.payload == "online" } != nil, "\(serve.log)"
    )
    #expect(try broker.retained(SiteTopics.siteStatus).map(\.payload) == ["online"])

    let replicas = try Replicas(broker, "pinpadd/door1/replica", dir: dir)
    try broker.publish("pinpadd/door1/front/state", #"{"phase":"idle"}"#, retain: true)
    try broker.publish("pinpadd/door1/status", "online", retain: true)
    let first = try #require(
      replicas.waitFor(publicKey) { Self.names($0) == ["alice", "bob"] }, "\(serve.log)")
    #expect(first.device == "door1")
    #expect(first.tagKey != nil && first.tagKey == tagKey)
    // No replica of door1 ever held carol, whose doors are door2's.
    let all = replicas.messages.compactMap { try? Replica.parse($0.bytes).get().replica }
    #expect(!all.isEmpty && all.allSatisfy { !Self.names($0).contains("carol") })
    // Retained: a device that subscribes later gets it at once.
    let later = try Replicas(broker, "pinpadd/door1/replica", dir: dir)
    #expect(E2E.waitUntil(timeout: 10) { later.messages.first?.retained == true })

    // bob revoked: a new replica without him, of a greater generation.
    _ = dir.write("codes", [alice, carol, ""].joined(separator: "\n"))
    chmod(codes, 0o600)
    let second = try #require(
      replicas.waitFor(publicKey, timeout: 10) { Self.names($0) == ["alice"] }, "\(serve.log)")
    #expect(second.generation > first.generation)

    // kill -9: the broker says offline for it (its last will, retained).
    let before = status.messages.count
    serve.kill(SIGKILL)
    #expect(
      status.waitFor(SiteTopics.siteStatus, after: before - 1) { $0.payload == "offline" }
        != nil)
    #expect(try broker.retained(SiteTopics.siteStatus).map(\.payload) == ["offline"])

    // Restarted, it sends the device its replica again, with a generation still greater.
    serve = try Background(E2E.pinpadctl, arguments, dir: dir, name: "serve2")
    let third = try #require(
      replicas.waitFor(publicKey) { $0.generation > second.generation }, "\(serve.log)")
    #expect(Self.names(third) == ["alice"])
    // The retained one is the newest.
    let retained = try #require(replicas.messages.last)
    guard case .success(let last) = Replica.parse(retained.bytes) else {
      Issue.record("the last replica does not parse")
      return
    }
    #expect(last.replica.generation >= third.generation)

    // A clean stop says offline too.
    let online = status.messages.count
    serve.kill(SIGTERM)
    #expect(
      status.waitFor(SiteTopics.siteStatus, after: online - 1) { $0.payload == "offline" }
        != nil)
    // (The lines that name a generation, a number of 13 digits, may hold any 4 by chance.)
    let logged = serve.log.split(separator: "\n").filter { !$0.contains("replica: generation") }
    for secret in ["2468", "1357", "9753"] {
      #expect(!shows(secret, in: logged.joined(separator: "\n")))
    }
  }

  @Test(
    "kill -9 of the site during a burst of 500 entries, then the door's resend: each stored exactly once, all acked"
  )
  func killedDuringABurst() throws {
    // A door's 500 decisions, its log made anew (a random id).
    let logID = LogCursor.newLogID(random: (0..<16).map { _ in UInt8.random(in: 0...255) })
    let burst = (1...500).map {
      LogEntry(
        log: logID, seq: UInt64($0), atMs: 1_796_619_600_000 + Int64($0), device: "door1",
        keypad: "front", person: "alice", granted: true, reason: nil, duress: false
      ).json
    }.joined(separator: "\n")
    let (dir, broker, arguments) = try Self.siteWithoutPeople()
    let lines = dir.write("burst.txt", burst + "\n")
    var serve = try Self.started(arguments, dir, "serve")
    let acks = try Subscriber(broker, "pinpadd/door1/log/ack", dir: dir)
    func publishAll() throws -> Process {
      let pub = Process()
      pub.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
      pub.arguments = broker.clientArguments + ["-q", "1", "-t", "pinpadd/door1/log", "-l"]
      pub.standardInput = FileHandle(forReadingAtPath: lines)
      pub.standardOutput = FileHandle.nullDevice
      pub.standardError = FileHandle.nullDevice
      try pub.run()
      return pub
    }
    let first = try publishAll()
    E2E.sleep(Double.random(in: 0.02...0.3))
    serve.kill(SIGKILL)
    first.waitUntilExit()
    serve = try Self.started(arguments, dir, "serve2")
    // The door sends again everything not acknowledged: here, all of it.
    let again = try publishAll()
    again.waitUntilExit()
    #expect(
      acks.waitFor("pinpadd/door1/log/ack", timeout: 30) { ($0.json?["upto"] as? Int) == 500 }
        != nil, "\(serve.log)")
    let run = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", dir.file("state"), "--json"], input: "")
    let rows = RulesEndToEndTests.jsonLines(run.stdout)
    let times = rows.compactMap { $0["at"] as? String }
    #expect(rows.count == 500, "\(run.stderr)")
    #expect(Set(times).count == 500)
  }

  @Test(
    "the doors' log entries are stored once per (device, log, seq), acked, refused for another device, and shown by pinpadctl log"
  )
  func doorLogs() throws {
    let (dir, broker, arguments) = try Self.siteWithoutPeople()
    var serve = try Self.started(arguments, dir, "serve")
    let acks = try Subscriber(broker, "pinpadd/+/log/ack", dir: dir)
    let logID = LogCursor.newLogID(random: Array(0..<16))
    func entry(_ seq: UInt64, device: String = "door1", granted: Bool = true) -> String {
      LogEntry(
        log: logID, seq: seq, atMs: 1_796_619_600_000 + Int64(seq), device: device,
        keypad: "front", person: granted ? "alice" : nil, granted: granted,
        reason: granted ? nil : "no_match", duress: false
      ).json
    }
    try broker.publish("pinpadd/door1/log", entry(1))
    try broker.publish("pinpadd/door1/log", entry(2, granted: false))
    try broker.publish("pinpadd/door1/log", entry(2, granted: false))  // sent again
    try broker.publish("pinpadd/door2/log", entry(3))  // door2 writing door1's log
    try broker.publish("pinpadd/door1/log", "not json")
    let ack = acks.waitFor("pinpadd/door1/log/ack") { ($0.json?["upto"] as? Int) == 2 }
    #expect(ack?.json?["log"] as? String == logID, "\(serve.log)")
    #expect(!acks.messages.contains { $0.topic == "pinpadd/door2/log/ack" })

    // Restarted, it still knows what it holds: a resend is stored no more and acked.
    serve.kill(SIGKILL)
    serve = try Self.started(arguments, dir, "serve2")
    let seen = acks.messages.count
    try broker.publish("pinpadd/door1/log", entry(1))
    try broker.publish("pinpadd/door1/log", entry(3))
    #expect(
      acks.waitFor("pinpadd/door1/log/ack", after: seen - 1) { ($0.json?["upto"] as? Int) == 3 }
        != nil, "\(serve.log)")

    let run = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", dir.file("state"), "--json"], input: "")
    #expect(run.status == 0, "\(run.stderr)")
    let rows = RulesEndToEndTests.jsonLines(run.stdout)
    #expect(rows.count == 3, "\(run.stdout)")
    #expect(
      rows.allSatisfy { $0["decided"] as? String == "local" && $0["device"] as? String == "door1" })
    #expect(rows.map { $0["result"] as? String } == ["granted", "denied", "granted"])
    #expect(rows[1]["reason"] as? String == "no_match")
    #expect(rows[0]["person"] as? String == "alice")
  }

  @Test(
    "--sign-key goes with --mqtt (exit 64); a key that is not an Ed25519 private key is one line (exit 78)"
  )
  func signKeyChecks() throws {
    let dir = TempDir()
    let codes = ControllerEndToEndTests.writeCodes(dir, "")
    let (keyPath, _) = try Self.keys(dir)
    let alone = try runProgram(
      E2E.pinpadctl,
      ["serve", "--state-dir", dir.file("state"), "--codes", codes, "--sign-key", keyPath])
    #expect(alone.status == 64)
    #expect(alone.stderr.contains("--sign-key goes with --mqtt"))
    let notAKey = dir.write("not.key", "hello\n")
    chmod(notAKey, 0o600)
    let pub = dir.file("site.pub")
    chmod(pub, 0o600)
    let config = dir.write("c.conf", mqttSection(broker: "mqtt://127.0.0.1:1", topic: "x"))
    for (path, why) in [
      (dir.file("missing.key"), "cannot read the key file"), (notAKey, "not a PEM private key"),
      (pub, "not a PEM private key"),
    ] {
      let run = try runProgram(
        E2E.pinpadctl,
        [
          "serve", "--state-dir", dir.file("state"), "--codes", codes, "--mqtt", "--sign-key", path,
          "--config", config,
        ])
      #expect(run.status == 78, "\(path): \(run.stderr)")
      #expect(run.stderr.contains(why), "\(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
  }
}
