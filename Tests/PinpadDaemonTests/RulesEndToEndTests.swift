import Foundation
import Glibc
import PinpadControlCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// Codes that expire, count and keep to hours and doors, and the access log
/// (docs/protocol.md, "Codes file: options" and "Access log"; issue 22), through the real
/// `pinpadctl hash`, `serve` and `log`.
@Suite struct RulesEndToEndTests {
  static func hash(_ arguments: [String], _ pin: String) throws -> String {
    try AccessControlEndToEndTests.hash(arguments, pin + "\n")
  }

  /// `serve` with a lockout that the test's few denials in a row do not reach.
  static func serve(_ server: ProtocolServer, _ dir: TempDir, _ codes: String) throws
    -> RunningProcess
  {
    let config = dir.write("pinpadd.conf", "[Lockout]\nMaxFailures=50\n")
    return try RunningProcess(
      E2E.pinpadctl,
      [
        "--socket", server.path, "serve", "--state-dir", dir.file("state"), "--codes", codes,
        "--config", config,
      ],
      environment: ["TZ": "UTC", "PATH": "/usr/bin:/bin"])
  }

  static func log(_ dir: TempDir, _ arguments: [String]) throws -> String {
    let run = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", dir.file("state")] + arguments, input: "")
    #expect(run.status == 0, "\(run.stderr)")
    return run.stdout
  }

  static func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  @Test func serveKeepsToTheRulesNamesTheReasonsAndLogsEveryDecision() throws {
    let dir = TempDir()
    // A window of every day that starts two hours from now (UTC): certainly outside.
    let hour = (Int(Date().timeIntervalSince1970) / 3600 + 2) % 24
    func hhmm(_ h: Int) -> String { (h < 10 ? "0" : "") + "\(h)00" }
    let lines = [
      try Self.hash(["guest", "--uses", "1"], "1111"),
      try Self.hash(["garage", "--doors", "garage+site-*/back"], "2222"),
      try Self.hash(["old", "--until", "2020-01-31"], "3333"),
      try Self.hash(["future", "--from", "2099-01-01T0800"], "4444"),
      try Self.hash(["off", "--disabled"], "5555"),
      try Self.hash(["night", "--hours", "\(hhmm(hour))-\(hhmm((hour + 1) % 24))"], "6666"),
    ]
    #expect(lines[0].hasSuffix(":uses=1"), "\(lines[0])")
    #expect(lines[1].contains("doors=garage+site-*/back"), "\(lines[1])")
    #expect(lines[2].contains("until=2020-02-01"), "a bare until is through that day")
    #expect(lines[4].hasSuffix("disabled"))
    let bad = try runProgram(E2E.pinpadctl, ["hash", "x", "--hours", "Mon"], input: "1\n")
    #expect(bad.status == 64 && bad.stderr.contains("hours="), "\(bad.stderr)")
    let codes = ControllerEndToEndTests.writeCodes(
      dir, lines.joined(separator: "\n") + "\nbroken:$y$x:uses=0\n")
    let server = try ProtocolServer(path: dir.file("fake.sock"))
    var serve = try Self.serve(server, dir, codes)
    #expect(server.accept())
    let cases: [(code: String, keypad: String, result: String, reason: String?)] = [
      ("1111", "door", "granted", nil),
      ("1111", "door", "denied", "used_up"),
      ("2222", "door", "denied", "wrong_door"),
      ("2222", "garage", "granted", nil),
      ("3333", "door", "denied", "expired"),
      ("4444", "door", "denied", "not_yet_valid"),
      ("5555", "door", "denied", "disabled"),
      ("6666", "door", "denied", "outside_hours"),
      ("7777", "door", "denied", "unknown"),
    ]
    for (n, item) in cases.enumerated() {
      let verdict = try #require(
        server.ask(id: "r\(n)", code: item.code, card: nil, keypad: item.keypad))
      #expect(verdict["result"] as? String == item.result, "case \(n): \(verdict)")
      #expect(verdict["reason"] as? String == item.reason, "case \(n): \(verdict)")
    }
    serve.kill(SIGTERM)
    let stderr = serve.stderr.wait()
    #expect(stderr.contains("\(codes):7: broken: uses= is not a number"), "\(stderr)")
    #expect(stderr.contains("attempt r4 on keypad door: denied (expired; old)"), "\(stderr)")

    // The use stays spent across a restart.
    serve = try Self.serve(server, dir, codes)
    #expect(server.accept())
    let again = try #require(server.ask(id: "r9", code: "1111", card: nil))
    #expect(again["reason"] as? String == "used_up", "\(again)")
    serve.kill(SIGTERM)

    let rows = Self.jsonLines(try Self.log(dir, ["--json"]))
    #expect(rows.count == 10)
    #expect(rows.map { $0["id"] as? String ?? "" } == (0...9).map { "r\($0)" })
    #expect(
      rows.map { $0["reason"] as? String ?? "-" } == cases.map { $0.reason ?? "-" } + ["used_up"])
    #expect(rows[0]["person"] as? String == "guest" && rows[0]["result"] as? String == "granted")
    #expect(rows[8]["person"] is NSNull, "no line matched: no person")
    #expect(rows[4]["person"] as? String == "old")
    #expect((rows[0]["at"] as? String)?.hasSuffix("Z") == true)
    #expect(Self.jsonLines(try Self.log(dir, ["--json", "--person", "guest"])).count == 3)
    #expect(Self.jsonLines(try Self.log(dir, ["--json", "--door", "garage"])).count == 1)
    #expect(Self.jsonLines(try Self.log(dir, ["--json", "--since", "1h"])).count == 10)
    #expect(Self.jsonLines(try Self.log(dir, ["--json", "--until", "2020-01-01"])).isEmpty)
    let table = try Self.log(dir, ["--person", "old"]).split(separator: "\n")
    #expect(table.count == 2 && table[0].hasPrefix("TIME"), "\(table)")
    #expect(table[1].contains("door") && table[1].contains("old") && table[1].contains("expired"))
    #expect(try runProgram(E2E.pinpadctl, ["log", "--since", "soon"], input: "").status == 64)

    // Nothing about a code is in the database: no PIN, no hash, not even part of one.
    let state = dir.file("state")
    for file in ["access.db", "access.db-wal"] {
      guard let bytes = FileManager.default.contents(atPath: state + "/" + file) else { continue }
      let text = String(decoding: bytes, as: UTF8.self)
      for secret in ["1111", "2222", "3333", "7777", "$y$"] {
        #expect(!shows(secret, in: text), "\(file) holds \(secret)")
      }
      var info = stat()
      #expect(stat(state + "/" + file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file)")
    }
  }

  @Test func theSystemsZoneDatabaseDrivesLocalTimesWithTZEuropeBerlin() throws {
    // Decisions at moments around Europe/Berlin's 2026 nights, read back by `log` in
    // local time (localtime_r) and selected by a local --since (through the offsets).
    let dir = TempDir()
    let state = dir.file("state")
    mkdir(state, 0o700)
    let log = try AccessLog(directory: state)
    let moments: [(String, Int64)] = [
      ("2026-03-29 01:59:00", 1_774_745_940),  // 00:59Z, CET
      ("2026-03-29 03:00:00", 1_774_746_000),  // 01:00Z, CEST: 02:xx never shows
      ("2026-10-25 02:30:00", 1_792_888_200),  // 00:30Z, CEST
      ("2026-10-25 02:30:00", 1_792_891_800),  // 01:30Z, CET: the same wall time again
    ]
    for (n, moment) in moments.enumerated() {
      _ = try log.commit(
        AccessLog.Record(
          at: moment.1 * 1000, device: nil, keypad: "door", person: "p\(n)", granted: true,
          reason: nil))
    }
    let berlin = ["TZ": "Europe/Berlin", "PATH": "/usr/bin:/bin"]
    let table = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", state], input: "", environment: berlin)
    #expect(table.status == 0, "\(table.stderr)")
    let rows = table.stdout.split(separator: "\n").dropFirst()
    #expect(rows.map { String($0.prefix(19)) } == moments.map(\.0), "\(table.stdout)")
    // 03:00 local on the spring night is 01:00Z; 02:30, which that night skips, is read
    // as mktime(3) does, an hour on (03:30, 01:30Z); 02:30 in autumn is its first passing.
    for (since, count) in [("2026-03-29T0300", 3), ("2026-03-29T0230", 2), ("2026-10-25T0230", 2)] {
      let run = try runProgram(
        E2E.pinpadctl, ["log", "--state-dir", state, "--json", "--since", since], input: "",
        environment: berlin)
      #expect(Self.jsonLines(run.stdout).count == count, "--since \(since): \(run.stdout)")
    }
  }

  @Test func aFullDiskDeniesWithReasonUnavailableAndServeRecoversWhenSpaceIsBack() throws {
    // serve's state directory is a 2 MiB tmpfs of its own mount namespace; the test
    // fills and frees it through /proc/PID/root.
    let dir = TempDir()
    let state = dir.file("state")
    mkdir(state, 0o700)
    let codes = ControllerEndToEndTests.writeCodes(dir, try Self.hash(["ann"], "1357") + "\n")
    let server = try ProtocolServer(path: dir.file("fake.sock"))
    let serve = try RunningProcess(
      "/usr/bin/unshare",
      [
        "-m", "sh", "-c",
        "mount -t tmpfs -o size=2m,mode=0700 none \(state) && exec \(E2E.pinpadctl)"
          + " --socket \(server.path) serve --state-dir \(state) --codes \(codes)",
      ])
    #expect(server.accept())
    #expect(server.ask(id: "f0", code: "1357", card: nil)?["result"] as? String == "granted")
    let filler = "/proc/\(serve.pid)/root\(state)/filler"
    let fill = try runProgram("/bin/sh", ["-c", "cat /dev/zero > \(filler)"], input: "")
    #expect(fill.stderr.contains("No space left"), "\(fill.stderr)")
    for n in 1...3 {
      let verdict = server.ask(id: "f\(n)", code: "1357", card: nil)
      #expect(verdict?["result"] as? String == "denied", "\(String(describing: verdict))")
      #expect(verdict?["reason"] as? String == "unavailable")
    }
    #expect(unlink(filler) == 0)
    #expect(server.ask(id: "f4", code: "1357", card: nil)?["result"] as? String == "granted")
    // The database vanishing is no silent grant either.
    for file in ["access.db", "access.db-wal", "access.db-shm"] {
      unlink("/proc/\(serve.pid)/root\(state)/\(file)")
    }
    let gone = server.ask(id: "f5", code: "1357", card: nil)
    #expect(gone?["reason"] as? String == "unavailable", "\(String(describing: gone))")
    serve.kill(SIGTERM)
    let stderr = serve.stderr.wait()
    let errors = stderr.split(separator: "\n").filter { $0.contains("error:") }
    #expect(errors.count == 2, "one line when it starts, each time: \(stderr)")
    #expect(stderr.contains("decisions are recorded again"), "\(stderr)")
    #expect(!shows("1357", in: stderr))
  }

  @Test func killedAtRandomDuringABurstServeLosesNoAnsweredVerdictAndCountsEveryUseOnce() throws {
    let dir = TempDir()
    let codes = ControllerEndToEndTests.writeCodes(
      dir,
      try Self.hash(["many", "--uses", "100000"], "2468") + "\n" + (try Self.hash(["x"], "1111"))
        + "\n")
    let server = try ProtocolServer(path: dir.file("fake.sock"))
    var received: [String: String] = [:]
    var sent = 0
    for round in 0..<5 {
      let serve = try Self.serve(server, dir, codes)
      #expect(server.accept())
      // A burst of 200 codes (1000 in all), one in 20 wrong; serve is killed while it
      // answers them (each answer waits for its commit, about 5 ms here).
      for n in 0..<200 {
        let code = n % 20 == 19 ? "9999" : "2468"
        server.send(
          #"{"type":"code","id":"k\#(round)-\#(n)","keypad":"door","code":"\#(code)"}"#)
        sent += 1
      }
      // The kill falls at a random moment after the first answer of the burst.
      if let first = server.nextRequest(timeout: 20), let id = first["id"] as? String {
        received[id] = first["result"] as? String
      }
      usleep(UInt32.random(in: 0...800_000))
      serve.kill(SIGKILL)
      while let verdict = server.nextRequest(timeout: 2) {
        if let id = verdict["id"] as? String { received[id] = verdict["result"] as? String }
      }
    }
    #expect(received.count > 0 && received.count < sent, "the kills fell inside the bursts")
    let rows = Self.jsonLines(try Self.log(dir, ["--json"]))
    var logged: [String: String] = [:]
    for row in rows { logged[row["id"] as? String ?? ""] = row["result"] as? String }
    #expect(rows.count == logged.count, "no decision is logged twice")
    for (id, result) in received {
      #expect(logged[id] == result, "\(id): answered \(result), logged \(logged[id] ?? "nothing")")
    }
    let spent = try runProgram(
      "/usr/bin/sqlite3",
      [dir.file("state") + "/access.db", "SELECT spent FROM uses WHERE person = 'many'"], input: "")
    let grants = rows.filter { $0["result"] as? String == "granted" }.count
    #expect((Int(spent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) == grants)
    #expect(grants >= received.values.filter { $0 == "granted" }.count)
  }

  @Test func keepDaysBoundsTheLogInLogAndInServe() throws {
    let dir = TempDir()
    let state = dir.file("state")
    mkdir(state, 0o700)
    let log = try AccessLog(directory: state)
    let day: Int64 = 86_400_000
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    for (n, age) in [400, 40, 10, 0].enumerated() {
      _ = try log.commit(
        AccessLog.Record(
          at: now - Int64(age) * day, device: nil, keypad: "door", person: "p\(n)",
          granted: true, reason: nil))
    }
    let run = try runProgram(
      E2E.pinpadctl, ["log", "--state-dir", state, "--keep-days", "30", "--json"], input: "")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(Self.jsonLines(run.stdout).map { $0["person"] as? String } == ["p2", "p3"])
    #expect(run.stderr.contains("deleted 2 decisions older than 30 days"), "\(run.stderr)")
    // serve's recorder prunes with its own --keep-days when it records.
    let recorder = DecisionRecorder(log: log, keepDays: 5, say: { _ in })
    _ = recorder.record(
      DecisionCore.Record(
        at: now, device: nil, keypad: "door", attempt: "k", decision: .deny(.unknown)))
    var left: [String?] = []
    try log.query(AccessLog.Filter()) { left.append($0.person) }
    #expect(left == ["p3", nil])
    #expect(try runProgram(E2E.pinpadctl, ["log", "--keep-days", "0"], input: "").status == 64)
  }

  @Test func theRealDaemonPassesTheReasonOnInItsVerdictEvent() throws {
    let dir = TempDir()
    let codes = ControllerEndToEndTests.writeCodes(
      dir, try Self.hash(["old", "--until", "2020-01-31"], "0007") + "\n")
    let daemon = try RunningDaemon(
      recording: E2E.recording("0007\n", firstGap: 1.2, pause: 0.3), dir: dir)
    let watcher = try daemon.connect()
    let serve = try RunningProcess(
      E2E.pinpadctl,
      ["--socket", daemon.socket, "serve", "--state-dir", dir.file("state"), "--codes", codes])
    let code = try #require(try watcher.waitFor("code", timeout: 15)).message
    let verdict = try #require(
      try watcher.waitFor("verdict", timeout: 15) { $0.string("id") == code.string("id") })
    #expect(verdict.message.string("result") == "denied")
    #expect(verdict.message.string("reason") == "expired", "\(verdict.message)")
    serve.kill(SIGTERM)
    #expect(daemon.stop() == 0)
  }

  @Test func twoControllersRacingForTheLastUseGrantItExactlyOnce() throws {
    // The lowest level that proves it: two connections to one database (as two fleet
    // controllers, or two doors' serve, have), racing 100 times for a uses=1 line.
    let dir = TempDir()
    let a = try AccessLog(directory: dir.path)
    let b = try AccessLog(directory: dir.path)
    let grants = LockedCounter()
    for round in 0..<100 {
      let person = "guest\(round)"
      let start = DispatchSemaphore(value: 0)
      let group = DispatchGroup()
      for log in [a, b] {
        let box = UncheckedBox(log)
        DispatchQueue.global().async(group: group) {
          start.wait()
          let record = AccessLog.Record(
            at: 1, device: "d", keypad: "k", person: person, granted: true, reason: nil)
          if (try? box.value.commit(record, uses: 1))?.granted == true { grants.add(round) }
        }
      }
      start.signal()
      start.signal()
      group.wait()
    }
    #expect(grants.counts == Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, 1) }))
    var rows = 0
    try a.query(AccessLog.Filter()) { _ in rows += 1 }
    #expect(rows == 200)
  }

  @Test func aDatabaseFromTheFirstSchemaIsMigratedKeepingItsRows() throws {
    let dir = TempDir()
    do {
      let old = try AccessLog(directory: dir.path, upTo: 1)
      #expect(old.version == 1)
    }
    // Rows as the first schema held them (no attempt column).
    let insert = try runProgram(
      "/usr/bin/sqlite3",
      [
        dir.path + "/access.db",
        "INSERT INTO log (at_ms, keypad, person, result) VALUES (5, 'door', 'ann', 'granted');"
          + " INSERT INTO uses VALUES ('ann', 1);",
      ], input: "")
    #expect(insert.status == 0, "\(insert.stderr)")
    let log = try AccessLog(directory: dir.path)
    #expect(log.version == Int64(AccessLog.schemaVersion))
    var records: [AccessLog.Record] = []
    try log.query(AccessLog.Filter(person: "ann")) { records.append($0) }
    #expect(records.count == 1 && records.first?.at == 5 && records.first?.attempt == "")
    #expect(try log.spent("ann") == 1)
    // A database newer than this program is refused, not damaged.
    _ = try log.commit(
      AccessLog.Record(
        at: 6, device: nil, keypad: "d", person: nil, granted: false, reason: "unknown"))
    let raw = try runProgram(
      "/usr/bin/sqlite3", [dir.path + "/access.db", "PRAGMA user_version = 99;"], input: "")
    #expect(raw.status == 0, "\(raw.stderr)")
    #expect(throws: AccessLog.Failure.self) { try AccessLog(directory: dir.path) }
  }
}

final class LockedCounter: @unchecked Sendable {
  private let lock = NSLock()
  private(set) var counts: [Int: Int] = [:]
  func add(_ key: Int) {
    lock.lock()
    counts[key, default: 0] += 1
    lock.unlock()
  }
}

struct UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}
