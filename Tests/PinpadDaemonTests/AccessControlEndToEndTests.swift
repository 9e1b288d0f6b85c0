import Foundation
import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem
import PinpadTestSupport
import Testing

/// A listening Unix socket that speaks the daemon's side of the protocol to one client
/// (`pinpadctl serve`): sends the hello, then code messages of any shape (the daemon
/// may not send cards yet), and reads the verdicts.
final class ProtocolServer {
  let path: String
  private let listening: OpenDescriptor
  private var listener: Int32 { listening.fd }
  private var connection: OwnedDescriptor = .none
  private var client: Int32 { connection.fd.rawValue }
  private var buffer: [UInt8] = []

  init(path: String) throws {
    self.path = path
    guard let bound = boundUnixSocket(path), Glibc.listen(bound.fd, 4) == 0 else {
      throw ClientError("bind \(path)")
    }
    listening = bound
  }

  /// Waits for the client and greets it.
  func accept(timeout: Double = 10) -> Bool {
    var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&pfd, 1, Int32(timeout * 1000)) == 1 else { return false }
    connection.replace(with: OwnedDescriptor(taking: Glibc.accept(listener, nil, nil)))
    return client >= 0 && send(#"{"type":"hello","protocol":1,"version":"0.1.0"}"#)
  }

  /// Hangs up on the client.
  func hangUp() {
    connection.close()
  }

  @discardableResult
  func send(_ line: String) -> Bool {
    let bytes = Array((line + "\n").utf8)
    return bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, 0) } == bytes.count
  }

  /// Sends a code message with `code` and/or `card` and returns the verdict for it.
  func ask(
    id: String, code: String?, card: String?, keypad: String = "door", timeout: Double = 10
  ) -> [String: Any]? {
    var members = [#""type":"code""#, #""id":"\#(id)""#, #""keypad":"\#(keypad)""#]
    if let code { members.append(#""code":"\#(code)""#) }
    if let card { members.append(#""card":"\#(card)""#) }
    members.append(#""at":"2026-12-01T12:00:00.000Z""#)
    guard send("{" + members.joined(separator: ",") + "}") else { return nil }
    let end = E2E.now() + timeout
    while E2E.now() < end {
      guard let line = nextLine(until: end) else { return nil }
      let value = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      if value?["id"] as? String == id { return value }
    }
    return nil
  }

  /// The next line the client sends, as JSON.
  func nextRequest(timeout: Double = 10) -> [String: Any]? {
    guard let line = nextLine(until: E2E.now() + timeout) else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }

  private func nextLine(until end: Double) -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      var pfd = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
      let left = end - E2E.now()
      guard left > 0, poll(&pfd, 1, Int32(left * 1000) + 1) == 1 else { return nil }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let n = recv(client, &chunk, chunk.count, 0)
      guard n > 0 else { return nil }
      buffer += chunk[0..<n]
    }
  }
}

/// Card + PIN, card-only people, duress codes and the tag key, through the real
/// `pinpadctl hash` and `pinpadctl serve` (docs/protocol.md, "Codes file"; issue 12).
@Suite struct AccessControlEndToEndTests {
  /// `pinpadctl hash ARGS` with `input` on standard input: its one line.
  static func hash(_ arguments: [String], _ input: String) throws -> String {
    let run = try runProgram(E2E.pinpadctl, ["hash"] + arguments, input: input, timeout: 30)
    #expect(run.status == 0, "\(run.stderr)")
    for secret in input.split(separator: "\n") where !secret.isEmpty {
      #expect(!shows(secret, in: run.stdout) && !shows(secret, in: run.stderr))
    }
    return run.stdout.trimmingCharacters(in: .newlines)
  }

  @Test(
    "hash writes 16-bit tags: the first 4 hex digits of HMAC-SHA256(key, label, hash, secret) as openssl computes it"
  )
  func tagsAreTheDocumentedHMAC() throws {
    let dir = TempDir()
    let key = dir.file("codes.key")
    let line = try Self.hash(["erin", "--card", "--key", key], "0012345678\n864209\n")
    let keyHex = try String(contentsOfFile: key, encoding: .utf8).trimmingCharacters(
      in: .newlines)
    let fields = line.split(separator: ":").map(String.init)
    try #require(fields.count == 3, "\(line)")
    let options = Dictionary(
      fields[2].split(separator: ",").compactMap { option -> (String, String)? in
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
      }, uniquingKeysWith: { a, _ in a })
    /// The tag docs/protocol.md describes, by the openssl command.
    func expected(_ label: String, _ hash: String, _ secret: String) throws -> String {
      let run = try runProgram(
        "/usr/bin/openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + keyHex],
        input: label + "\u{0}" + hash + "\u{0}" + secret)
      return String(run.stdout.split(separator: " ").last!.prefix(4))
    }
    let pin = try #require(options["tag"]).split(separator: ".").map(String.init)
    let card = try #require(options["cardtag"]).split(separator: ".").map(String.init)
    #expect(pin.count == 2 && pin[0].count == 4 && pin[1].count == 4, "\(line)")
    #expect(card.count == 2 && card[0] == pin[0] && card[1].count == 4, "\(line)")
    let cardHash = try #require(options["card"])
    let pinTag = try expected("pinpadd pin tag", fields[1], "864209")
    let cardTag = try expected("pinpadd card tag", cardHash, "0012345678")
    #expect(pin[1] == pinTag)
    #expect(card[1] == cardTag)
  }

  @Test func serveAnswersCardsCodesAndDuressAndLogsTheDuressByName() throws {
    let dir = TempDir()
    let key = dir.file("codes.key")
    let alice = try Self.hash(["alice", "--card", "--key", key], "0012345678\n1357\n")
    #expect(alice.hasPrefix("alice:$y$") && alice.contains(":tag=") && alice.contains(",card=$y$"))
    #expect(alice.contains(",cardtag="))
    var info = stat()
    #expect(stat(key, &info) == 0 && info.st_mode & 0o777 == 0o600, "the key is for its owner")
    let bob = try Self.hash(["bob"], "2468\n")  // an old line: no tag
    let carol = try Self.hash(["carol", "--card", "--key", key], "0099\n\n")
    #expect(carol.hasPrefix("carol:-:card=$y$") && carol.contains(",cardtag="), "\(carol)")
    #expect(!carol.contains(":tag=") && !carol.contains(",tag="), "a card-only line has no PIN tag")
    let dave = try Self.hash(["dave", "--duress", "--key", key], "9753\n")
    #expect(dave.hasSuffix(",duress"), "\(dave)")
    let codes = ControllerEndToEndTests.writeCodes(
      dir, [alice, "broken line", bob, carol, dave].joined(separator: "\n") + "\n")
    let server = try ProtocolServer(path: dir.file("fake.sock"))
    let serve = try RunningProcess(
      E2E.pinpadctl,
      [
        "--socket", server.path, "serve", "--state-dir", dir.file("state"), "--codes", codes,
        "--key", key,
      ])
    #expect(server.accept())
    let cases: [(code: String?, card: String?, result: String, duress: Bool)] = [
      ("1357", "0012345678", "granted", false),  // alice, card + PIN
      ("2468", "0012345678", "denied", false),  // bob's PIN with alice's card
      ("1357", "0012345679", "denied", false),  // alice's PIN, a wrong card
      (nil, "0012345678", "denied", false),  // alice's card alone: her line needs the PIN
      ("1357", nil, "granted", false),  // alice's PIN alone
      (nil, "0099", "granted", false),  // carol, card only
      ("1111", "0099", "denied", false),  // carol has no PIN
      ("2468", nil, "granted", false),  // bob, untagged
      ("9753", nil, "granted", true),  // dave, duress
      ("8642", nil, "denied", false),
    ]
    for (n, item) in cases.enumerated() {
      let verdict = try #require(server.ask(id: "a\(n)", code: item.code, card: item.card))
      #expect(verdict["type"] as? String == "verdict")
      #expect(verdict["result"] as? String == item.result, "case \(n)")
      #expect((verdict["duress"] as? Bool ?? false) == item.duress, "case \(n)")
    }
    serve.kill(SIGTERM)
    let log = serve.stderr.wait()
    #expect(log.contains("\(codes):2: expected NAME:HASH"), "\(log)")
    #expect(log.contains("warning: DURESS: dave on keypad door (attempt a8)"), "\(log)")
    #expect(log.contains("attempt a0 on keypad door: granted (alice)"))
    #expect(log.contains("attempt a5 on keypad door: granted (carol)"))
    for secret in ["1357", "2468", "0012345678", "0012345679", "0099", "9753", "8642", "1111"] {
      #expect(!shows(secret, in: log), "serve logged a secret: \(log)")
    }
  }

  /// A daemon typed on through its terminal, a watching client, and `serve` with `codes`
  /// and `key` connected to it: what is typed from now on goes to both (a code goes to the
  /// clients there when it is done; a replay's fixed delay lost the race to a slow start
  /// on a loaded machine).
  static func serveOnTypedDaemon(_ dir: TempDir, codes: String, key: String) throws -> (
    TypedDaemon, TestClient, RunningProcess
  ) {
    let daemon = try TypedDaemon(config: "", dir: dir)
    let watcher = try daemon.connect()
    let serve = try RunningProcess(
      E2E.pinpadctl,
      [
        "--socket", daemon.socket, "serve", "--state-dir", dir.file("state"), "--codes", codes,
        "--key", key,
      ])
    #expect(E2E.waitUntil(timeout: 20) { daemon.clients() == 2 }, "serve did not connect")
    return (daemon, watcher, serve)
  }

  @Test func serveWithATagKeyGrantsACodeTypedOnTheRealDaemon() throws {
    let dir = TempDir()
    let key = dir.file("codes.key")
    let lines = try ["alice", "bob"].enumerated().map { n, name in
      try Self.hash([name, "--key", key], ["0007", "4242"][n] + "\n")
    }
    let codes = ControllerEndToEndTests.writeCodes(dir, lines.joined(separator: "\n") + "\n")
    let (daemon, watcher, serve) = try Self.serveOnTypedDaemon(dir, codes: codes, key: key)
    var results: [String] = []
    for pin in ["4242", "5555"] {
      daemon.type(pin + "\r")
      let verdict = try #require(try watcher.waitFor("verdict", timeout: 10)).message
      results.append(verdict.string("result") ?? "")
    }
    #expect(results == ["granted", "denied"])
    serve.kill(SIGTERM)
    #expect(serve.stderr.wait().contains("granted (bob)"))
    #expect(daemon.stopped() == 0)
  }

  @Test(
    "a duress code typed at a door its line does not open: denied, and the daemon's alarm and serve's warning all the same"
  )
  func aDuressLineDeniedByItsRulesStillRaisesTheAlarm() throws {
    let dir = TempDir()
    let key = dir.file("codes.key")
    let dave = try Self.hash(["dave", "--duress", "--doors", "garage", "--key", key], "9753\n")
    let codes = ControllerEndToEndTests.writeCodes(dir, dave + "\n")
    let (daemon, watcher, serve) = try Self.serveOnTypedDaemon(dir, codes: codes, key: key)
    daemon.type("9753\r")
    let verdict = try #require(try watcher.waitFor("verdict", timeout: 8)).message
    #expect(verdict.string("result") == "denied")
    #expect(verdict.string("reason") == "wrong_door")
    let alarm = try #require(try watcher.waitFor("alarm", timeout: 4)).message
    #expect(alarm.string("reason") == "duress")
    #expect(alarm.string("id") == verdict.string("id"))
    serve.kill(SIGTERM)
    let log = serve.stderr.wait()
    #expect(log.contains("warning: DURESS: dave on keypad default"), "\(log)")
    #expect(log.contains("the door stayed shut (wrong_door)"), "\(log)")
    #expect(!shows("9753", in: log))
    #expect(daemon.stopped() == 0)
    #expect(!shows("9753", in: daemon.log))
  }

  @Test func serveWarnsWhenManyLinesWouldBeCheckedInFullAndNotWhenTheyAreTagged() throws {
    let dir = TempDir()
    let keyBytes = [UInt8](repeating: 0x5A, count: 32)
    let key = dir.write("k", CodeTagKey.fileText(keyBytes))
    chmod(key, 0o600)
    let id = String(decoding: CodeTagKey(key: keyBytes).id, as: UTF8.self)
    func lines(_ tag: String) -> String {
      (0..<64).map { "p\($0):$y$j9T$salt\($0)$hash\($0)" + tag }.joined(separator: "\n") + "\n"
    }
    func log(_ text: String, key: String?) throws -> String {
      let codes = ControllerEndToEndTests.writeCodes(dir, text)
      let serve = try RunningProcess(
        E2E.pinpadctl,
        [
          "--socket", dir.file("none.sock"), "serve", "--state-dir", dir.file("state"), "--codes",
          codes,
        ]
          + (key.map { ["--key", $0] } ?? []))
      E2E.sleep(1.0)
      serve.kill(SIGTERM)
      return serve.stderr.wait()
    }
    let plain = try log(lines(""), key: nil)
    #expect(
      plain.contains("no --key is given; a code alone is checked against 64 hashes"), "\(plain)")
    let old = try log(lines(""), key: key)
    #expect(old.contains("64 lines have no tag= made with this key"), "\(old)")
    let tagged = try log(lines(":tag=\(id).00"), key: key)
    #expect(!tagged.contains("warning"), "\(tagged)")
    #expect(tagged.contains("cannot connect"), "serve started: \(tagged)")
  }

  @Test func serveRefusesAKeyFileOthersCanReadOrThatIsNotAKey() throws {
    let dir = TempDir()
    let codes = ControllerEndToEndTests.writeCodes(dir, try Self.hash(["a"], "1234\n") + "\n")
    let key = dir.write("k", String(repeating: "ab", count: 32) + "\n")
    chmod(key, 0o644)
    let open = try runProgram(
      E2E.pinpadctl, ["serve", "--state-dir", dir.file("state"), "--codes", codes, "--key", key])
    #expect(open.status == 78)
    #expect(open.stderr.contains("\(key): others may read it (mode 0644)"), "\(open.stderr)")
    let bad = dir.write("bad", "not a key\n")
    chmod(bad, 0o600)
    let wrong = try runProgram(
      E2E.pinpadctl, ["serve", "--state-dir", dir.file("state"), "--codes", codes, "--key", bad])
    #expect(wrong.status == 78)
    #expect(wrong.stderr.contains("not a key file (one line of 64 hex digits)"), "\(wrong.stderr)")
    #expect(!wrong.stderr.contains("not a key\n"))
  }

  @Test func hashWarnsWhenThePinDoesNotFitTheDaemonsEntrySettings() throws {
    let dir = TempDir()
    func warning(_ config: String, _ pin: String) throws -> String {
      let path = dir.write("c\(UInt32.random(in: 0...UInt32.max)).conf", config)
      let run = try runProgram(
        E2E.pinpadctl, ["hash", "alice", "--config", path], input: pin + "\n", timeout: 30)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.hasPrefix("alice:$y$"))
      #expect(!shows(pin, in: run.stderr))
      return run.stderr
    }
    #expect(try warning("[Entry]\nLength=6\n", "1234").contains("exactly 6 ([Entry] Length=)"))
    #expect(try warning("[Entry]\nLength=6\n", "123456").isEmpty)
    #expect(try warning("", "123").contains("fewer than [Entry] MinLength=4"))
    #expect(
      try warning("[Entry]\nMaxLength=6\n", "1234567").contains("more than [Entry] MaxLength=6"))
    #expect(try warning("", "12345678").isEmpty)
    #expect(
      try warning("[Entry]\nAllowedDigits=123456\n", "1297").contains("AllowedDigits="))
    // The config is read like the daemon's: a drop-in wins.
    let base = dir.write("d.conf", "[Entry]\nLength=4\n")
    mkdir(dir.file("d.conf.d"), 0o755)
    _ = dir.write("d.conf.d/10-six.conf", "[Entry]\nLength=6\n")
    let run = try runProgram(
      E2E.pinpadctl, ["hash", "bob", "--config", base], input: "1234\n", timeout: 30)
    #expect(run.stderr.contains("exactly 6"), "\(run.stderr)")
    let broken = try runProgram(
      E2E.pinpadctl, ["hash", "bob", "--config", dir.write("x.conf", "[Entry]\nLength=x\n")],
      input: "1234\n")
    #expect(broken.status == 78)
    #expect(broken.stderr.contains("x.conf:2: "), "\(broken.stderr)")
  }

  @Test func hashWithACardOnATerminalAsksForTheCardAndThePinTwiceWithoutEcho() throws {
    let dir = TempDir()
    let config = dir.write("p.conf", "[Entry]\nLength=6\n")
    let terminal = try PseudoTerminal()
    let process = try terminal.start(
      E2E.pinpadctl, ["hash", "alice", "--card", "--duress", "--config", config])
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var seen = terminal.readAll(timeout: 5) { $0.contains("Card: ") }
    terminal.type("0012345678\r")
    seen += terminal.readAll(timeout: 5) { $0.contains("Again: ") }
    terminal.type("0012345678\r")
    seen += terminal.readAll(timeout: 5) { $0.contains("PIN (empty: card only): ") }
    terminal.type("4321\r")
    seen += terminal.readAll(timeout: 5) { $0.contains("Again: ") }
    terminal.type("4321\r")
    seen += terminal.readAll(timeout: 10)
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    #expect(process.terminationStatus == 0, "\(seen)")
    #expect(
      seen.contains("warning: the PIN has 4 digits but the keypads take exactly 6"), "\(seen)")
    #expect(seen.contains("alice:$y$") && seen.contains(":card=$y$") && seen.contains(",duress"))
    #expect(
      !shows("4321", in: seen) && !shows("12345678", in: seen), "a secret was echoed: \(seen)")
  }

  @Test func hashWithACardRefusesWhatIsNotACardAndEntriesThatDiffer() throws {
    let bad = try runProgram(E2E.pinpadctl, ["hash", "a", "--card"], input: "00-12\n1234\n")
    #expect(bad.status == 1)
    #expect(bad.stderr.contains("a card number is 1 to 64 letters or digits"))
    #expect(bad.stdout.isEmpty)
    let usage = try runProgram(E2E.pinpadctl, ["hash", "a", "b"], input: "1234\n")
    #expect(usage.status == 64)
  }
}
