import Foundation
import Glibc
import PinpadSystem
import PinpadTestSupport
import Testing

/// Issue 15: hostile input through the real interfaces: terminal escapes in verdict
/// messages and configuration files, numbers at the edges of Int64, FIFOs in place of
/// files, unknown account names, and the small ones. The hostile lockout state files
/// (numbers at Int64's edges, a corrupt line, a FIFO) are in `LockoutStateTests`, on the
/// `DaemonHarness`.
@Suite struct HostileInputEndToEndTests {
  // MARK: 3. A verdict message cannot drive the terminal

  @Test func aVerdictMessageIsCleanedAndCutBeforeTheConsoleShowsIt() throws {
    let pty = try PseudoTerminal(columns: 60, openFollower: false)
    let daemon = try RunningDaemon(
      recording: E2E.recording("1234\n", firstGap: 1.5), display: "console:" + pty.followerPath)
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 10)).message
    let message =
      "\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m\u{202E}Wrong\r\ncode "
      + String(repeating: "z", count: 500)
    client.send(json: [
      "type": "verdict", "id": code.string("id")!, "result": "denied", "message": message,
    ])
    #expect(try client.waitFor("verdict", timeout: 5) != nil)
    let shown = pty.readAvailable(settle: 1.0)
    #expect(daemon.stop() == 0)

    let scalars = shown.unicodeScalars
    #expect(!scalars.contains("\u{07}"), "a BEL reached the terminal")
    #expect(!scalars.contains("\u{9B}"), "a C1 CSI reached the terminal")
    #expect(!scalars.contains("\u{202E}"), "a bidi override reached the terminal")
    #expect(!shown.contains("\u{1B}]"), "an OSC sequence reached the terminal")
    let lines = shown.split(whereSeparator: \.isNewline).map(String.init)
    let line: String = try #require(
      lines.first { $0.contains("Wrong") }, "the message is not shown:\n\(shown)")
    #expect(!line.contains("\u{1B}"), "escape in the message line: \(line.debugDescription)")
    #expect(line.hasSuffix("\u{2026}"), "not cut with an ellipsis: \(line)")
    #expect(line.count <= 60, "wider than the terminal: \(line.count)")
    #expect(line.contains("]0;owned[2J31mWrong  code zzz"))
  }

  @Test func aConfigurationErrorEscapesControlBytesFromTheFile() throws {
    let dir = TempDir()
    let config = dir.write("evil.conf", "[Entry]\nPrompt\u{07}\u{1B}]0;t\u{07}\u{1B}[2J=x\r\n")
    let result = try runProgram(E2E.pinpadd, ["--check-config", "--config", config])
    #expect(result.status == 78)
    #expect(result.stderr.hasPrefix(config + ":2: "), "\(result.stderr)")
    #expect(
      !result.stderr.dropLast().unicodeScalars.contains { $0.value < 0x20 },
      "\(result.stderr.debugDescription)")
    #expect(result.stderr.contains(#"\x07\x1b]0;t\x07\x1b[2J"#), "\(result.stderr)")
  }

  // MARK: 7. Numbers at the edges never trap

  @Test func aRecordingTimeOf9223372037SecondsIsRefusedWithItsLine() throws {
    let daemon = try RunningDaemon(
      recording: "E: 9223372037.000000 0001 004f 0001\n", waitForSocket: false)
    #expect(daemon.waitExit(timeout: 5) == 69)
    #expect(
      daemon.log.contains(":1: time 9223372037.000000 is past the largest one"), "\(daemon.log)")
  }

  @Test(arguments: [false, true])
  func recordedEventsTwoToThe63NanosecondsApartDoNotCrash(fast: Bool) throws {
    let recording = """
      E: 0.000000 0001 0002 0001
      E: 0.000000 0000 0000 0000
      E: 9223372035.999999 0001 0002 0000
      E: 9223372035.999999 0000 0000 0000

      """
    let daemon = try RunningDaemon(recording: recording, fast: fast)
    let client = try daemon.connect()
    E2E.sleep(0.5)
    #expect(try client.status() != nil)
    #expect(daemon.isRunning)
    #expect(daemon.stop() == 0)
  }

  // MARK: 9. A FIFO in place of a file is refused at once

  @Test func aFIFOAsTheConfigurationIsRefusedAtOnce() throws {
    let dir = TempDir()
    let fifo = dir.file("pinpadd.conf")
    #expect(mkfifo(fifo, 0o600) == 0)
    let result = try runProgram(E2E.pinpadd, ["--check-config", "--config", fifo], timeout: 5)
    #expect(result.status == 78)
    #expect(result.stderr.contains("\(fifo): cannot read: not a regular file but a FIFO"))
  }

  @Test func aFIFODropInOnReloadIsRefusedAndTheDaemonKeepsRunning() throws {
    let daemon = try RunningDaemon()
    try FileManager.default.createDirectory(
      atPath: daemon.configPath + ".d", withIntermediateDirectories: true)
    #expect(mkfifo(daemon.configPath + ".d/50-fifo.conf", 0o600) == 0)
    daemon.signal(SIGHUP)
    #expect(E2E.waitUntil(timeout: 3) { daemon.log.contains("reload failed") })
    #expect(daemon.log.contains("50-fifo.conf: cannot read: not a regular file but a FIFO"))
    let client = try daemon.connect()
    #expect(try client.status() != nil)
    #expect(daemon.stop() == 0)
  }

  @Test func aFIFOAsTheFontFailsTheStartAtOnce() throws {
    let dir = TempDir()
    let fifo = dir.file("font.psf")
    #expect(mkfifo(fifo, 0o600) == 0)
    let daemon = try RunningDaemon(
      config: "[Display]\nFont=\(fifo)\n", display: "snapshot:" + dir.file("frames"), dir: dir,
      waitForSocket: false)
    #expect(daemon.waitExit(timeout: 5) == 69)
    #expect(daemon.log.contains("cannot read font \(fifo): not a regular file but a FIFO"))
  }

  // MARK: 9b. `--config /dev/null`: no configuration, defaults only (issue 24.9)

  @Test func checkConfigOfDevNullPrintsTheDefaultsLikeAnEmptyFile() throws {
    let dir = TempDir()
    let empty = dir.write("empty.conf", "")
    let null = try runProgram(E2E.pinpadd, ["--check-config", "--config", "/dev/null"])
    let file = try runProgram(E2E.pinpadd, ["--check-config", "--config", empty])
    #expect(null.status == 0, "\(null.stderr)")
    #expect(null.stderr == "")
    #expect(file.status == 0)
    #expect(null.stdout == file.stdout)
    #expect(null.stdout.contains("MinLength=4"))
  }

  @Test func theDaemonStartsWithDevNullAsItsConfiguration() throws {
    // The later --config wins: the daemon reads /dev/null (MinLength=4 by default), not
    // the file beside it, whose MinLength=6 would keep 1234 as "too short".
    let daemon = try RunningDaemon(
      config: "[Entry]\nMinLength=6\n", recording: E2E.recording("1234\n", firstGap: 1),
      extraArguments: ["--config", "/dev/null"])
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 10)).message
    #expect(code.string("code") == "1234")
    #expect(!daemon.log.contains("cannot read"), "\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test func pinpadctlReadsDevNullAsAFileWithNoMQTTSection() throws {
    for arguments in [
      ["mqtt", "--config", "/dev/null"],
      ["serve", "--codes", "/dev/null", "--mqtt", "--config", "/dev/null"],
    ] {
      let done = try runProgram(E2E.pinpadctl, ["--socket", "/nonexistent/s"] + arguments)
      #expect(done.status == 78, "\(arguments): \(done.stderr)")
      #expect(!done.stderr.contains("not a regular file"), "\(arguments): \(done.stderr)")
    }
    let bridge = try runProgram(E2E.pinpadctl, ["mqtt", "--config", "/dev/null"])
    #expect(bridge.stderr == "/dev/null: no [MQTT] section (Broker= is required)\n")
  }

  @Test func aFIFOASocketADirectoryAndAFullDeviceAreStillRefused() throws {
    let dir = TempDir()
    let fifo = dir.file("fifo.conf")
    #expect(mkfifo(fifo, 0o600) == 0)
    let listener = try #require(boundUnixSocket(dir.file("socket.conf")))
    defer { listener.close() }
    let terminal = try PseudoTerminal(columns: 80, openFollower: false)
    let refused: [(path: String, message: String)] = [
      (fifo, "not a regular file but a FIFO"),
      (dir.path, "not a regular file but a directory"),
      ("/dev/zero", "not a regular file but a character device"),
      // A terminal nobody typed on would block a read: refused at once.
      (terminal.followerPath, "not a regular file but a character device"),
      (dir.file("socket.conf"), "cannot read: "),
    ]
    for (path, message) in refused {
      let check = try runProgram(E2E.pinpadd, ["--check-config", "--config", path], timeout: 5)
      #expect(check.status == 78, "\(path)")
      #expect(
        check.stderr.hasPrefix("\(path):0: ") || check.stderr.hasPrefix("\(path): "),
        "\(check.stderr)")
      #expect(check.stderr.contains(message), "\(path): \(check.stderr)")
      let bridge = try runProgram(E2E.pinpadctl, ["mqtt", "--config", path], timeout: 5)
      #expect(bridge.status == 78, "\(path)")
      #expect(bridge.stderr.contains(message), "\(path): \(bridge.stderr)")
    }
  }

  // MARK: 10. Unknown explicit names in [Socket], the same everywhere

  static let unknownNames: [(text: String, message: String)] = [
    ("Group=nosuchgroup", "Group=nosuchgroup: no such group"),
    ("AllowUsers=root nosuchuser", "AllowUsers: no such user nosuchuser"),
    ("AllowGroups=nosuchgroup", "AllowGroups: no such group nosuchgroup"),
  ]

  @Test(arguments: unknownNames)
  func anUnknownNameFailsTheCheckTheStartAndAReload(text: String, message: String) throws {
    let config = "[Socket]\n# comment\n\(text)\n"
    // --check-config
    let dir = TempDir()
    let path = dir.write("pinpadd.conf", config)
    let check = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(check.status == 78)
    #expect(check.stderr == "\(path):3: \(message)\n")
    // start
    let start = try RunningDaemon(config: config, waitForSocket: false)
    #expect(start.waitExit(timeout: 5) == 78)
    #expect(start.log.contains("\(start.configPath):3: \(message)"), "\(start.log)")
    #expect(!FileManager.default.fileExists(atPath: start.socket))
    // reload
    let running = try RunningDaemon()
    _ = running.dir.write("pinpadd.conf", config)
    running.signal(SIGHUP)
    #expect(E2E.waitUntil(timeout: 3) { running.log.contains("reload failed") })
    #expect(running.log.contains("\(running.configPath):3: \(message)"))
    #expect(!running.log.contains("configuration reloaded"))
    #expect(try running.connect().status() != nil)
    #expect(running.stop() == 0)
  }

  // MARK: 12. The small ones

  @Test func anEmptyConfigPathIsAUsageError() throws {
    let result = try runProgram(E2E.pinpadd, ["--check-config", "--config", ""])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--config needs a file name"))
  }

  @Test func anEmptyAllowedDigitsIsAConfigurationError() throws {
    let dir = TempDir()
    let path = dir.write("pinpadd.conf", "[Entry]\nAllowedDigits=\n")
    let result = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(result.status == 78)
    #expect(result.stderr.hasPrefix("\(path):2: AllowedDigits= is empty"), "\(result.stderr)")
  }

  @Test func statusNamesAFastReplayAsReplayFast() throws {
    let daemon = try RunningDaemon(fast: true)
    let inputs = try #require(try daemon.connect().status()?["inputs"] as? [String])
    #expect(inputs.count == 1)
    #expect(inputs.first?.hasPrefix("replay-fast:") == true, "\(inputs)")
    #expect(daemon.stop() == 0)
  }

  @Test func aNumberBeyondADoubleIsOutOfRangeNotMalformed() throws {
    let daemon = try RunningDaemon()
    let client = try daemon.connect()
    client.send("{\"type\":\"status\",\"n\":1e400}\n")
    let error = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(error.string("reason")?.hasPrefix("number out of range") == true, "\(error)")
    #expect(try client.status() != nil)
    #expect(daemon.stop() == 0)
  }
}

/// A Unix stream socket bound at `path`, nil if that failed.
func boundUnixSocket(_ path: String) -> OpenDescriptor? {
  let owner = OpenDescriptor(
    OwnedDescriptor(taking: socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)))
  let fd = owner.fd
  guard fd >= 0 else { return nil }
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &address.sun_path) { raw in
    for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
  }
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  return bound == 0 ? owner : nil
}

/// True when `path` is a regular file (a FIFO is never opened to find out).
func isRegularFile(_ path: String) -> Bool {
  var info = stat()
  return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
}
