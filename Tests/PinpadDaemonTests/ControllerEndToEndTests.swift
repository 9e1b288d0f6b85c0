import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// `pinpadctl serve --codes FILE` and `pinpadctl hash` (pinpadctl(1), issue 4).
@Suite struct ControllerEndToEndTests {
  static func hashLine(_ name: String, _ code: String) throws -> String {
    let run = try runProgram(E2E.pinpadctl, ["hash", name], input: code + "\n")
    #expect(run.status == 0, "\(run.stderr)")
    let line = run.stdout.trimmingCharacters(in: .newlines)
    #expect(line.hasPrefix("\(name):$y$"), "\(line)")
    #expect(!shows(code, in: run.stdout) && !shows(code, in: run.stderr))
    return line
  }

  /// Writes a codes file for its owner alone, as `serve` requires.
  @discardableResult
  static func writeCodes(_ dir: TempDir, _ text: String, mode: mode_t = 0o600) -> String {
    let path = dir.write("codes", text)
    chmod(path, mode)
    return path
  }

  @Test func hashReadsStandardInputAndMakesAFreshYescryptHashEachTime() throws {
    let a = try Self.hashLine("door", "0007")
    let b = try Self.hashLine("door", "0007")
    #expect(a != b)  // a new salt every time
    for bad in ["12a4", "", String(repeating: "1", count: 33)] {
      let run = try runProgram(E2E.pinpadctl, ["hash"], input: bad + "\n")
      #expect(run.status == 1, "\(bad): \(run.stderr)")
      #expect(run.stdout.isEmpty)
    }
    #expect(try runProgram(E2E.pinpadctl, ["hash", "a:b"], input: "1234\n").status == 64)
  }

  @Test func hashOnATerminalAsksTwiceWithoutEcho() throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.start(E2E.pinpadctl, ["hash", "alice"])
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var seen = terminal.readAll(timeout: 5) { $0.contains("PIN: ") }
    terminal.type("4321\r")
    seen += terminal.readAll(timeout: 5) { $0.contains("Again: ") }
    terminal.type("4321\r")
    seen += terminal.readAll(timeout: 5)
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    #expect(process.terminationStatus == 0, "\(seen)")
    #expect(seen.contains("alice:$y$"), "\(seen)")
    #expect(!shows("4321", in: seen), "the code was echoed: \(seen)")
  }

  @Test func serveGrantsMatchingCodesDeniesOthersAndReportsBadLines() throws {
    let dir = TempDir()
    let codes = Self.writeCodes(
      dir,
      "# door codes\nnot a line\n" + (try Self.hashLine("alice", "0007")) + "\nbob:\n")
    // The first key 4 s after the start: the watcher and serve connect before it even when
    // a loaded machine holds this process back for seconds (a code that comes before any
    // client is held for the first one to connect, and the other never sees it). The
    // second code 3 s after the first: its first digit came before the first verdict
    // with 0.3 s under ASan at load 8 (ignored while checking), and the rest was too short.
    let daemon = try RunningDaemon(
      recording: E2E.recording("0007\n|1234\n", firstGap: 4, pause: 3), dir: dir)
    let watcher = try daemon.connect()
    let serve = try RunningProcess(
      E2E.pinpadctl,
      ["--socket", daemon.socket, "serve", "--state-dir", dir.file("state"), "--codes", codes])
    var verdicts: [String] = []
    for expected in ["0007", "1234"] {
      // Generous waits: a loaded machine starts the daemon and serve slowly. When the
      // code does not come (seen twice in make test's ASan pass on a loaded machine, not
      // reproduced alone), the daemon's and serve's logs say where it went.
      guard let code = try watcher.waitFor("code", timeout: 30)?.message else {
        serve.kill(SIGTERM)
        let state = daemon.isRunning ? "running" : "gone"
        let serveLog = serve.stderr.wait()
        Issue.record(
          "no code \(expected) within 30 s; pinpadd \(state):\n\(daemon.log)\nserve:\n\(serveLog)")
        return
      }
      #expect(code.string("code") == expected)
      let verdict = try #require(
        try watcher.waitFor("verdict", timeout: 15) { $0.string("id") == code.string("id") })
      verdicts.append(verdict.message.string("result") ?? "")
    }
    #expect(verdicts == ["granted", "denied"])
    serve.kill(SIGTERM)
    let log = serve.stderr.wait()
    #expect(log.contains("\(codes):2: expected NAME:HASH"), "\(log)")
    #expect(log.contains("\(codes):4: "), "\(log)")
    #expect(log.contains("granted (alice)"))
    #expect(!shows("0007", in: log) && !shows("1234", in: log), "serve printed a code: \(log)")
    #expect(daemon.stop() == 0)
  }

  @Test func serveRereadsTheCodesFileWhenItChanges() throws {
    let dir = TempDir()
    let alice = try Self.hashLine("alice", "0007")
    let bob = try Self.hashLine("bob", "2468")
    let codes = Self.writeCodes(dir, alice + "\n")
    let daemon = try RunningDaemon(
      recording: E2E.recording("2468\n|2468\n", firstGap: 4, pause: 1.0), dir: dir)
    let watcher = try daemon.connect()
    let serve = try RunningProcess(
      E2E.pinpadctl,
      ["--socket", daemon.socket, "serve", "--state-dir", dir.file("state"), "--codes", codes])
    let first = try #require(try watcher.waitFor("verdict", timeout: 15)).message
    #expect(first.string("result") == "denied")
    Self.writeCodes(dir, alice + "\n" + bob + "\n")
    let second = try #require(try watcher.waitFor("verdict", timeout: 5)).message
    #expect(second.string("result") == "granted")
    serve.kill(SIGTERM)
    #expect(daemon.stop() == 0)
  }

  @Test func serveReconnectsAfterTheDaemonRestarts() throws {
    let dir = TempDir()
    let codes = Self.writeCodes(dir, try Self.hashLine("alice", "0007") + "\n")
    var daemon = try RunningDaemon(dir: dir)
    let serve = try RunningProcess(
      E2E.pinpadctl,
      ["--socket", daemon.socket, "serve", "--state-dir", dir.file("state"), "--codes", codes])
    #expect(
      E2E.waitUntil(timeout: 3) { (try? daemon.connect().status())??.int("clients") == 2 })
    #expect(daemon.stop() == 0)
    daemon = try RunningDaemon(recording: E2E.recording("0007\n", firstGap: 2.0), dir: dir)
    let watcher = try daemon.connect()
    let verdict = try #require(try watcher.waitFor("verdict", timeout: 6)).message
    #expect(verdict.string("result") == "granted")
    serve.kill(SIGTERM)
    #expect(serve.stderr.wait().contains("reconnecting"))
    #expect(daemon.stop() == 0)
  }

  @Test(arguments: [0o644, 0o602, 0o666] as [mode_t])
  func serveRefusesACodesFileOthersCanReadOrWrite(mode: mode_t) throws {
    let dir = TempDir()
    let codes = Self.writeCodes(dir, try Self.hashLine("alice", "0007") + "\n", mode: mode)
    let run = try runProgram(
      E2E.pinpadctl,
      [
        "--socket", dir.file("none.sock"), "serve", "--state-dir", dir.file("state"), "--codes",
        codes,
      ])
    #expect(run.status == 78)
    let octal = "0" + String(mode, radix: 8)
    #expect(run.stderr.hasPrefix("pinpadctl serve: \(codes): others may "), "\(run.stderr)")
    #expect(run.stderr.contains("(mode \(octal))"))
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
  }

  @Test func serveTakesACodesFileItsGroupCanReadAndDeniesEveryoneWhenItIsMadeReadableToOthers()
    throws
  {
    let dir = TempDir()
    let alice = try Self.hashLine("alice", "0007")
    let bob = try Self.hashLine("bob", "1111")
    let codes = Self.writeCodes(dir, alice + "\n", mode: 0o640)
    let daemon = try RunningDaemon(
      recording: E2E.recording("0007\n|0007\n", firstGap: 4, pause: 2.5), dir: dir)
    let watcher = try daemon.connect()
    let serve = try RunningProcess(
      E2E.pinpadctl,
      ["--socket", daemon.socket, "serve", "--state-dir", dir.file("state"), "--codes", codes])
    let first = try #require(try watcher.waitFor("verdict", timeout: 15)).message
    #expect(first.string("result") == "granted")
    // Readable by others now: not taken, and the old list is not used either (issue 26):
    // nobody is granted until the file is fixed.
    Self.writeCodes(dir, alice + "\n" + bob + "\n", mode: 0o644)
    let second = try #require(try watcher.waitFor("verdict", timeout: 5)).message
    #expect(second.string("result") == "denied")
    serve.kill(SIGTERM)
    let log = serve.stderr.wait()
    #expect(log.components(separatedBy: "others may read it (mode 0644)").count == 2, "\(log)")
    #expect(daemon.stop() == 0)
  }
}
