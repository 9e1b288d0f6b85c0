import Foundation
import Glibc
import PinpadSystem
import Testing

/// SPEC §7 and §5: no digit of a code in logs, files, argv, the environment, or on a
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
      #expect(!log.contains(fragment), "log holds \(fragment)")
      for text in proc { #expect(!text.contains(fragment)) }
    }
    let keyNames = try Regex(#"KEY_(KP)?[0-9](?![0-9A-Z_])"#)
    #expect(log.firstMatch(of: keyNames) == nil, "a digit key name in the log")

    // Two denials locked the keypad, so the state directory holds the lockout state.
    let files = try #require(
      FileManager.default.enumerator(atPath: daemon.stateDir)?.allObjects as? [String])
    #expect(!files.isEmpty, "no lockout state was written to check")
    for file in files {
      let text = try String(contentsOfFile: daemon.stateDir + "/" + file, encoding: .utf8)
      for code in Self.codes { #expect(!text.contains(code), "\(file) holds a code") }
    }
  }

  /// SPEC §9.1: card numbers are secrets like codes.
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
      #expect(!log.contains(fragment), "log holds \(fragment)")
      for text in proc { #expect(!text.contains(fragment)) }
    }
    let files = FileManager.default.enumerator(atPath: daemon.stateDir)?.allObjects as? [String]
    for file in files ?? [] {
      let text = (try? String(contentsOfFile: daemon.stateDir + "/" + file, encoding: .utf8)) ?? ""
      #expect(!text.contains(card), "\(file) holds the card")
    }
  }

  /// Fast replay hands every key over in one batch and the screen is drawn after each
  /// batch, so only the timed replay shows the boxes filling; both must hide digits.
  @Test(arguments: [false, true])
  func theConsoleNeverShowsADigitOfAMaskedCode(fast: Bool) throws {
    let terminal = try PseudoTerminal()
    let daemon = try RunningDaemon(
      config: "[Socket]\nDeliveryTimeoutSec=0.5\n",
      recording: E2E.recording("9898<98\n", gap: 0.05), fast: fast, display: "console",
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
    if !fast { #expect(text.contains("[*] [*] [*] [*]"), "no masked boxes in:\n\(text)") }
    #expect(text.contains("The service is not answering"), "no unavailable screen in:\n\(text)")
    #expect(!text.contains("9") && !text.contains("8"), "a digit of the code on screen:\n\(text)")
    #expect(raw.hasSuffix("\u{1B}[?25h"), "the cursor was not given back")
  }
}

/// A pseudo-terminal pair (posix_openpt): the daemon writes to the follower side, the
/// test reads the leader side.
final class PseudoTerminal {
  private let leaderSide: OwnedDescriptor
  var leader: Int32 { leaderSide.fd.rawValue }
  private(set) var follower: FileHandle?

  init() throws {
    // posix_openpt and friends need _XOPEN_SOURCE, which the Glibc module lacks.
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    func symbol<T>(_ name: String, as: T.Type) -> T {
      unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)!, to: T.self)
    }
    let openpt = symbol("posix_openpt", as: Open.self)
    let grantpt = symbol("grantpt", as: Open.self)
    let unlockpt = symbol("unlockpt", as: Open.self)
    let ptsname = symbol("ptsname", as: Name.self)
    leaderSide = OwnedDescriptor(taking: openpt(O_RDWR | O_NOCTTY))
    let leader = leaderSide.fd.rawValue
    guard leader >= 0, grantpt(leader) == 0, unlockpt(leader) == 0, let name = ptsname(leader)
    else { throw ClientError("no pseudo-terminal") }
    let fd = open(name, O_RDWR | O_NOCTTY)
    guard fd >= 0 else { throw ClientError("cannot open \(String(cString: name))") }
    follower = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
  }

  deinit { closeFollower() }

  /// Drops the test's copy of the follower so reads end when the program exits.
  func closeFollower() {
    try? follower?.close()
    follower = nil
  }

  /// Starts `program` with this terminal as its standard input, output and error (error
  /// to `stderr` when given), then drops the test's follower. The caller kills it if it
  /// is still running at the end.
  func start(_ program: String, _ arguments: [String], stderr: FileHandle? = nil) throws
    -> Process
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardInput = follower
    process.standardOutput = follower
    process.standardError = stderr ?? follower
    try process.run()
    closeFollower()
    return process
  }

  /// Writes `text` as if typed.
  func type(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
  }

  /// Everything the program wrote until it closed the terminal or `timeout` passed.
  func readAll(timeout: Double, until stop: (String) -> Bool = { _ in false }) -> String {
    var data: [UInt8] = []
    let end = E2E.now() + timeout
    while E2E.now() < end {
      var pfd = pollfd(fd: leader, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, 50)
      if ready <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let n = read(leader, &chunk, chunk.count)
      if n <= 0 { break }  // EIO: every follower descriptor is closed
      data += chunk[0..<n]
      if stop(String(decoding: data, as: UTF8.self)) { break }
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// `text` without ANSI escape sequences (CSI and two-byte ESC sequences).
  static func strippingEscapes(_ text: String) -> String {
    var out = ""
    var scalars = text.unicodeScalars.makeIterator()
    while let s = scalars.next() {
      guard s == "\u{1B}" else {
        out.unicodeScalars.append(s)
        continue
      }
      guard let kind = scalars.next() else { break }
      if kind == "[" {
        while let c = scalars.next(), !(0x40...0x7E).contains(c.value) {}
      }
    }
    return out
  }
}
