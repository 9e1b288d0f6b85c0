import Foundation
import Glibc
import PinpadSystem
import PinpadTestSupport
import Testing

/// pinpadd(8), EXIT STATUS and SIGNALS: exit codes, signals, configuration errors and
/// reloads of the real binary.
@Suite struct LifecycleEndToEndTests {
  @Test(arguments: [
    ("[Entry]\nLength=abc\n", 2),
    ("# comment\n[Entry]\nMinLength=4\nBogus=1\n", 4),
    ("[Nowhere]\n", 1),
  ])
  func aBadConfigurationExits78WithFileAndLine(config: String, line: Int) throws {
    let dir = TempDir()
    let path = dir.write("bad.conf", config)
    for extra in [["--check-config"], ["--display", "none", "--socket", dir.file("s.sock")]] {
      let run = try runProgram(E2E.pinpadd, extra + ["--config", path])
      #expect(run.status == 78, "\(extra): \(run.stderr)")
      #expect(run.stderr.hasPrefix("\(path):\(line): "), "\(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count == 1)
      #expect(!FileManager.default.fileExists(atPath: dir.file("s.sock")))
    }
  }

  @Test func checkConfigPrintsTheEffectiveConfigurationWithDropIns() throws {
    let dir = TempDir()
    let path = dir.write("pinpadd.conf", "[Entry]\nLength=6\n[Lockout]\nMaxFailures=3\n")
    try FileManager.default.createDirectory(atPath: path + ".d", withIntermediateDirectories: true)
    dir.write("pinpadd.conf.d/10-more.conf", "[Lockout]\nMaxFailures=7\n")
    let run = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(run.status == 0, "\(run.stderr)")
    for expected in ["[Entry]", "Length=6", "MaxFailures=7", "[Socket]", "DeliveryTimeoutSec="] {
      #expect(run.stdout.contains(expected), "\(expected) missing in:\n\(run.stdout)")
    }
    #expect(!run.stdout.contains("MaxFailures=3"))
  }

  @Test(arguments: [
    [E2E.pinpadd, "--bogus"],
    [E2E.pinpadd, "--log-level", "loud"],
    [E2E.pinpadd, "--input", "nonsense"],
    [E2E.pinpadd, "--check-config", "--version"],
    [E2E.pinpadctl],
    [E2E.pinpadctl, "frobnicate"],
    [E2E.pinpadctl, "serve"],
    [E2E.pinpadctl, "verdict", "x-1", "maybe"],
  ])
  func usageErrorsExit64(command: [String]) throws {
    let run = try runProgram(command[0], Array(command.dropFirst()))
    #expect(run.status == 64, "\(command): \(run.stderr)")
    #expect(!run.stderr.isEmpty)
  }

  @Test func aMissingRecordingExits69WithOneLine() throws {
    let dir = TempDir()
    let run = try runProgram(
      E2E.pinpadd,
      [
        "--config", dir.write("c.conf", ""), "--input", "replay:" + dir.file("missing.txt"),
        "--display", "none", "--socket", dir.file("s.sock"), "--state-dir", dir.file("state"),
      ])
    #expect(run.status == 69, "\(run.stderr)")
    #expect(run.stderr.contains("missing.txt"))
    #expect(!FileManager.default.fileExists(atPath: dir.file("s.sock")))
  }

  @Test(arguments: [SIGTERM, SIGINT])
  func aStopSignalExits0AndRemovesTheSocket(signal: Int32) throws {
    let daemon = try RunningDaemon(recording: E2E.recording("12"), fast: true)
    #expect(FileManager.default.fileExists(atPath: daemon.socket))
    let client = try daemon.connect()
    daemon.signal(signal)
    #expect(daemon.waitExit(timeout: 5) == 0)
    #expect(!FileManager.default.fileExists(atPath: daemon.socket))
    #expect(client.closesWithin(2))
  }

  @Test func sighupWithABadConfigurationKeepsTheOldOne() throws {
    let daemon = try RunningDaemon(
      config: "[Entry]\nLength=4\n", recording: E2E.recording("4321", firstGap: 1.5))
    let client = try daemon.connect()
    daemon.dir.write("pinpadd.conf", "[Entry]\nLength=abc\n")
    daemon.signal(SIGHUP)
    #expect(E2E.waitUntil(timeout: 3) { daemon.log.contains("reload failed") })
    #expect(daemon.log.contains("pinpadd.conf:2:"))
    #expect(daemon.isRunning)
    // Length=4 still holds: the code goes without Enter.
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    #expect(code.string("code") == "4321")
    #expect(daemon.stop() == 0)
  }

  @Test func sighupWithAGoodConfigurationAppliesIt() throws {
    let daemon = try RunningDaemon(
      config: "[Entry]\nLength=4\n", recording: E2E.recording("432198", firstGap: 1.5))
    let client = try daemon.connect()
    daemon.dir.write("pinpadd.conf", "[Entry]\nLength=6\n")
    daemon.signal(SIGHUP)
    #expect(E2E.waitUntil(timeout: 3) { daemon.log.contains("configuration reloaded") })
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    #expect(code.string("code") == "432198")
    #expect(daemon.stop() == 0)
  }
}

/// docs/protocol.md, "Socket: access", and issue 4: who may use the socket, and where the
/// socket comes from.
@Suite struct SocketAccessEndToEndTests {
  @Test func anUnauthorisedUidIsForbiddenEvenOnAWorldWritableSocket() throws {
    let dir = TempDir()
    chmod(dir.path, 0o755)
    let daemon = try RunningDaemon(dir: dir)
    // The daemon sets the mode after listen(): wait for that before widening it.
    #expect(E2E.waitUntil(timeout: 5) { daemon.log.contains("listening on") })
    chmod(daemon.socket, 0o666)
    let nobody = try runProgram(
      "/usr/bin/setpriv",
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", E2E.pinpadctl, "--socket",
        daemon.socket, "status",
      ])
    #expect(nobody.status != 0)
    #expect(nobody.stderr.contains("forbidden"), "\(nobody.stderr)")
    #expect(!nobody.stdout.contains("\"status\""))
    #expect(daemon.log.contains("refused uid 65534"))
    // root (AllowUsers=root) is served on the same socket.
    let root = try runProgram(E2E.pinpadctl, ["--socket", daemon.socket, "status"])
    #expect(root.status == 0, "\(root.stderr)")
    #expect(root.stdout.contains("\"type\":\"status\""))
    #expect(daemon.stop() == 0)
  }

  @Test func theSocketIsMode0660() throws {
    let daemon = try RunningDaemon()
    var info = stat()
    #expect(stat(daemon.socket, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o660)
    #expect(info.st_mode & S_IFMT == S_IFSOCK)
    #expect(daemon.stop() == 0)
  }

  @Test func aSocketPassedBySystemdIsServedAndNotUnlinked() throws {
    let activate = "/usr/bin/systemd-socket-activate"
    try #require(FileManager.default.isExecutableFile(atPath: activate))
    let dir = TempDir()
    let path = dir.file("activated.sock")
    // --socket names the same path: a daemon ignoring LISTEN_FDS would find it taken.
    let daemon = try RunningDaemon(
      dir: dir, socketPath: path, launcher: [activate, "-l", path])
    let client = try daemon.connect()
    #expect(client.hello.string("type") == "hello")
    #expect(try client.status() != nil)
    #expect(daemon.log.contains("passed by systemd"))
    #expect(daemon.stop() == 0)
    #expect(FileManager.default.fileExists(atPath: path))
  }

  @Test func aStaleSocketFileIsReplacedButALiveOneIsNot() throws {
    let dir = TempDir()
    try FileManager.default.createDirectory(
      atPath: dir.file("run"), withIntermediateDirectories: true)
    // A socket file nothing listens on, as a crashed daemon leaves it.
    var socket = OwnedDescriptor(taking: Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0))
    let fd = socket.fd.rawValue
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in dir.file("run/pinpadd.sock").utf8.enumerated() { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    socket.close()
    let daemon = try RunningDaemon(dir: dir)
    #expect(try daemon.connect().status() != nil)

    // A second daemon on the same live socket refuses to start (69) and leaves it be.
    let second = try runProgram(
      E2E.pinpadd,
      [
        "--config", daemon.configPath, "--input", "replay-fast:" + dir.write("k.txt", ""),
        "--display", "none", "--socket", daemon.socket, "--state-dir", daemon.stateDir,
      ])
    #expect(second.status == 69, "\(second.stderr)")
    #expect(try daemon.connect().status() != nil)
    #expect(daemon.stop() == 0)
  }
}
