import Foundation
import Glibc
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
}
