import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// `--input terminal` on a real pseudo-terminal: what a newcomer does with `make run`.
@Suite struct TerminalInputEndToEndTests {
  /// pinpadd with stdin and stdout on the follower side of `terminal`.
  static func start(_ terminal: PseudoTerminal, dir: TempDir) throws -> Process {
    let process = try FirstRunEndToEndTests.startOnTerminal(terminal, dir: dir)
    // The socket is bound before the inputs are opened: wait for the "ready" line.
    _ = E2E.waitUntil(timeout: 10) { dir.read("daemon.log").contains(" ready") }
    return process
  }

  @Test("digits typed on the terminal arrive as a code on the socket")
  func typedCodeArrives() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    let process = try Self.start(terminal, dir: dir)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    let client = try TestClient(path: dir.file("pinpadd.sock"))
    terminal.type("0042\r")
    let code = try client.waitFor("code", timeout: 5)?.message
    #expect(code?.string("code") == "0042")
    #expect(code?.string("keypad") == "default")
    terminal.type("\u{03}")  // Ctrl-C: raw mode delivers it as a byte
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(!FileManager.default.fileExists(atPath: dir.file("pinpadd.sock")))
  }

  @Test("a hung-up terminal stops the daemon instead of spinning on end-of-file")
  func hangUpStops() throws {
    let dir = TempDir()
    var terminal: PseudoTerminal? = try PseudoTerminal()
    let process = try Self.start(terminal!, dir: dir)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    #expect(process.isRunning)
    terminal = nil  // closes the leader: the follower reads EOF/EIO from now on
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning }, "pinpadd kept running")
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(dir.read("daemon.log"))")
  }

  /// The `flags:` of descriptor `fd` of process `pid` (/proc/PID/fdinfo, octal).
  static func descriptorFlags(pid: Int32, fd: Int32) -> Int32? {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8)) ?? ""
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }) else {
      return nil
    }
    return Int32(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
  }

  /// Issue 19: O_NONBLOCK on standard input was shared with standard output (one open
  /// file description on a terminal), so the console display's blocking writes could
  /// fail with EAGAIN on a busy terminal and drop frames.
  @Test("keys are read without making the display's standard output non-blocking")
  func standardOutputStaysBlocking() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    let process = try Self.start(terminal, dir: dir)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    let client = try TestClient(path: dir.file("pinpadd.sock"))
    terminal.type("0042\r")  // keys read: the input is set up and in use
    #expect(try client.waitFor("code", timeout: 5) != nil)
    let pid = process.processIdentifier
    for fd: Int32 in [0, 1] {
      let flags = try #require(Self.descriptorFlags(pid: pid, fd: fd), "no fdinfo for \(fd)")
      #expect(flags & O_NONBLOCK == 0, "fd \(fd) is non-blocking: flags \(String(flags, radix: 8))")
    }
    terminal.type("\u{03}")
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
  }
}
