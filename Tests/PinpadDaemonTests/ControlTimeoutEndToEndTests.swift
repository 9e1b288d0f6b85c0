import Foundation
import Glibc
import PinpadSystem
import PinpadTestSupport
import Testing

/// pinpadctl's one-shot commands wait for the daemon with a bound (pinpadctl(1),
/// `--timeout`): a daemon that greets and then never answers, or never greets, costs a
/// caller a few seconds and one line, exit 69, never a hang.
@Suite("pinpadctl gives up on a silent daemon")
struct ControlTimeoutEndToEndTests {
  /// A stand-in for pinpadd on `path`: accepts every connection, says hello when
  /// `greets`, then reads and answers nothing. Lives until the test's process ends.
  final class SilentDaemon: @unchecked Sendable {
    let dir = TempDir()
    var path: String { dir.file("s.sock") }
    private var listener: OwnedDescriptor

    init(greets: Bool) throws {
      listener = try UnixSocket.listen(path: dir.file("s.sock"))
      try listener.fd.setNonBlocking(false)
      guard greets else { return }
      let fd = listener.fd.rawValue
      Thread.detachNewThread {
        var held: [Int32] = []
        while true {
          let client = accept(fd, nil, nil)
          if client < 0 { break }
          let hello = Array("{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.0.0\"}\n".utf8)
          _ = hello.withUnsafeBytes { Glibc.write(client, $0.baseAddress, $0.count) }
          held.append(client)  // open, never answered: the client must give up alone
        }
      }
    }
  }

  func expectGivesUp(_ arguments: [String], greets: Bool = true) throws {
    let daemon = try SilentDaemon(greets: greets)
    let started = Date()
    let done = try runProgram(
      E2E.pinpadctl, ["--socket", daemon.path, "--timeout", "0.5"] + arguments, timeout: 20)
    let took = Date().timeIntervalSince(started)
    #expect(done.status == 69, "\(arguments): exit \(done.status), \(done.stderr)")
    #expect(
      done.stderr == "pinpadctl: \(daemon.path): pinpadd did not answer within 0.5 s\n",
      "\(done.stderr)")
    #expect(took >= 0.5, "gave up after \(took) s, before its timeout")
    #expect(done.stdout.isEmpty)
  }

  @Test func statusGivesUpWhenTheDaemonNeverAnswers() throws {
    try expectGivesUp(["status"])
  }

  @Test func verdictGivesUpWhenTheDaemonNeverAnswers() throws {
    try expectGivesUp(["verdict", "0123abcd", "granted"])
  }

  @Test func openGivesUpWhenTheDaemonNeverAnswers() throws {
    try expectGivesUp(["open", "main"])
  }

  /// Accepted by the kernel (the listen backlog) but never greeted.
  @Test func statusGivesUpWhenTheDaemonNeverGreets() throws {
    try expectGivesUp(["status"], greets: false)
  }

  @Test func theEnvironmentSetsTheDefaultTimeout() throws {
    let daemon = try SilentDaemon(greets: true)
    var environment = ProcessInfo.processInfo.environment
    environment["PINPADCTL_TIMEOUT"] = "0.3"
    let done = try runProgram(
      E2E.pinpadctl, ["--socket", daemon.path, "status"], timeout: 20, environment: environment)
    #expect(done.status == 69)
    #expect(done.stderr.hasSuffix("did not answer within 0.3 s\n"), "\(done.stderr)")
    environment["PINPADCTL_TIMEOUT"] = "never"
    let refused = try runProgram(
      E2E.pinpadctl, ["--socket", daemon.path, "status"], environment: environment)
    #expect(refused.status == 64)
    #expect(refused.stderr.hasPrefix("pinpadctl: PINPADCTL_TIMEOUT takes seconds"))
  }

  @Test func aTimeoutThatIsNoNumberIsAUsageError() throws {
    let done = try runProgram(E2E.pinpadctl, ["--timeout", "soon", "status"])
    #expect(done.status == 64)
    #expect(done.stderr.hasPrefix("pinpadctl: --timeout takes seconds"), "\(done.stderr)")
  }
}
