import Foundation
import Glibc
import PinpadSystem
import PinpadTestSupport
import Testing

/// pinpadd(8), DESCRIPTION: no digit of a code in logs, files, argv, the environment, or on a
/// masked console.
@Suite struct SecretsEndToEndTests {
  static let codes = ["58213749", "90642718", "31415926"]

  /// Every 6-digit run of each code: what a leak would show even in part.
  static var fragments: [String] {
    codes.flatMap { code in
      let chars = Array(code)
      return (0...(chars.count - 6)).map { String(chars[$0..<($0 + 6)]) }
    }
  }

  /// The checks below look past random tokens and nothing else.
  @Test func showsLooksPastAttemptIDsAndHashesOnly() {
    #expect(!shows("1234", in: "attempt 7de01ace05e144711234052852f405f5 on keypad default"))
    #expect(!shows("1234", in: "demo:$y$j9T$Ab1234cdEFghIJklMNopQR$x"))
    #expect(shows("1234", in: "attempt 7de01ace05e14471 code 1234"))
    #expect(shows("1234", in: #"{"type":"code","code":"1234"}"#))
    #expect(shows("0012345678", in: "card=0012345678:"))
    #expect(shows("345678", in: "ID 9f 0012345678"))
    // A loopback broker's random port is no code; the same digits elsewhere are.
    #expect(!shows("1357", in: "connected to mqtt://127.0.0.1:51357 as door1"))
    #expect(shows("1357", in: "mqtt://127.0.0.1:5 code 1357"))
    #expect(shows("1357", in: "127.0.0.2:51357"))
  }

  @Test func aDebugRunLeavesNoCodeInLogsStateArgvOrEnvironment() throws {
    let daemon = try RunningDaemon(
      config: "[Lockout]\nMaxFailures=2\nLockoutSec=1\n",
      recording: E2E.recording(
        // The pause after each code leaves time to answer its verdict first (keys typed
        // while a code is being checked are refused), on a loaded machine too.
        Self.codes.joined(separator: "\n|") + "\n", firstGap: 0.6, gap: 0.05, pause: 1.5,
        keypad: true))
    let client = try daemon.connect()
    var proc: [String] = []
    for (index, expected) in Self.codes.enumerated() {
      let code = try #require(try client.waitFor("code", timeout: 15)).message
      #expect(code.string("code") == expected)
      for name in ["environ", "cmdline"] {
        let data = FileManager.default.contents(atPath: "/proc/\(daemon.pid)/\(name)") ?? Data()
        proc.append(String(decoding: data, as: UTF8.self))
      }
      let result = index == 1 ? "granted" : "denied"
      client.send(json: ["type": "verdict", "id": code.string("id")!, "result": result])
      #expect(try client.waitFor("verdict", timeout: 3) != nil)
    }
    #expect(daemon.stop() == 0)

    let log = daemon.log
    #expect(log.contains("digit key pressed"))  // debug level was on
    for fragment in Self.fragments {
      #expect(!shows(fragment, in: log), "log holds \(fragment)")
      for text in proc { #expect(!shows(fragment, in: text)) }
    }
    let keyNames = try Regex(#"KEY_(KP)?[0-9](?![0-9A-Z_])"#)
    #expect(log.firstMatch(of: keyNames) == nil, "a digit key name in the log")

    // Two denials locked the keypad, so the state directory holds the lockout state.
    let files = try #require(
      FileManager.default.enumerator(atPath: daemon.stateDir)?.allObjects as? [String])
    #expect(!files.isEmpty, "no lockout state was written to check")
    for file in files {
      let text = try String(contentsOfFile: daemon.stateDir + "/" + file, encoding: .utf8)
      for code in Self.codes { #expect(!shows(code, in: text), "\(file) holds a code") }
    }
  }

  /// Card numbers are secrets like codes (pinpadd(8), CARD READERS).
  @Test func aCardNumberNeverReachesLogsStateArgvOrEnvironment() throws {
    let card = CardReaderEndToEndTests.card
    let daemon = try CardReaderEndToEndTests.daemon(mode: "card+pin", pin: "1234\n")
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 15)).message
    #expect(code.string("card") == card)
    var proc: [String] = []
    for name in ["environ", "cmdline"] {
      let data = FileManager.default.contents(atPath: "/proc/\(daemon.pid)/\(name)") ?? Data()
      proc.append(String(decoding: data, as: UTF8.self))
    }
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    #expect(try client.waitFor("verdict", timeout: 3) != nil)
    #expect(daemon.stop() == 0)
    let log = daemon.log
    #expect(log.contains("digit key pressed"))  // debug level was on
    #expect(log.contains("card read, waiting for the PIN"))
    let chars = Array(card)
    for start in 0...(chars.count - 6) {
      let fragment = String(chars[start..<(start + 6)])
      #expect(!shows(fragment, in: log), "log holds \(fragment)")
      for text in proc { #expect(!shows(fragment, in: text)) }
    }
    let files = FileManager.default.enumerator(atPath: daemon.stateDir)?.allObjects as? [String]
    for file in files ?? [] {
      let text = (try? String(contentsOfFile: daemon.stateDir + "/" + file, encoding: .utf8)) ?? ""
      #expect(!shows(card, in: text), "\(file) holds the card")
    }
  }

  /// Fast replay hands every key over in one batch and the screen is drawn after each
  /// batch, so only the timed replay shows the boxes filling; both must hide digits. The
  /// keys are 0.3 s apart: a replay that falls behind (a loaded machine: 50 ms apart, a
  /// stall handed all seven keys over in one batch) shows no box filled at all.
  @Test(arguments: [false, true])
  func theConsoleNeverShowsADigitOfAMaskedCode(fast: Bool) throws {
    let terminal = try PseudoTerminal()
    let daemon = try RunningDaemon(
      config: "[Socket]\nDeliveryTimeoutSec=0.5\n",
      recording: E2E.recording("9898<98\n", gap: 0.3), fast: fast, display: "console",
      stdout: terminal.follower)
    terminal.closeFollower()
    // Read while it runs, until the unavailable screen (drawn after the undelivered code
    // is wiped) is there; then the rest, up to the cursor given back at exit.
    var raw = terminal.readAll(timeout: 20) {
      PseudoTerminal.strippingEscapes($0).contains("Please try again later")
    }
    #expect(daemon.stop() == 0)
    raw += terminal.readAll(timeout: 3)
    let text = PseudoTerminal.strippingEscapes(raw)
    #expect(text.contains("Enter PIN"), "\(text)")
    if !fast { #expect(text.contains("[*] [*] [*]"), "no masked boxes in:\n\(text)") }
    #expect(text.contains("The service is not answering"), "no unavailable screen in:\n\(text)")
    #expect(!text.contains("9") && !text.contains("8"), "a digit of the code on screen:\n\(text)")
    #expect(raw.hasSuffix("\u{1B}[?25h"), "the cursor was not given back")
  }
}
