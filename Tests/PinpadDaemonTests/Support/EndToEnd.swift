import Foundation
import Glibc
import PinpadCore
import PinpadSystem
import PinpadTestSupport
import Testing

/// Helpers for tests that drive the real `pinpadd` and `pinpadctl` binaries over real
/// Unix sockets. Every wait is bounded; every process is killed on every path.
extension E2E {
  /// The folder holding the built binaries: $PINPADD_BIN_DIR, or the folder of the
  /// test bundle (`swift test` builds the executables next to it).
  static let binDirectory: String = {
    if let dir = ProcessInfo.processInfo.environment["PINPADD_BIN_DIR"], !dir.isEmpty {
      return dir
    }
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    return (exe as NSString).deletingLastPathComponent
  }()

  static var pinpadd: String { binDirectory + "/pinpadd" }
  static var pinpadctl: String { binDirectory + "/pinpadctl" }

  /// A recording typing `keys`: digits as KEY_n (or KEY_KPn with `keypad`), `\n` Enter,
  /// `E` KEY_KPENTER, `<` Backspace, `|` a pause of `pause` seconds before the next key.
  static func recording(
    _ keys: String, firstGap: Double = 0.05, gap: Double = 0.1, pause: Double = 0.5,
    keypad: Bool = false, name: String = "pinpadd test keypad"
  ) -> String {
    var presses: [(KeyCode, gapSeconds: Double)] = []
    var nextGap = firstGap
    for ch in keys {
      let code: KeyCode
      switch ch {
      case "0"..."9":
        let d = UInt8(String(ch))!
        code = keypad ? .keypad(d) : .mainRow(d)
      case "\n": code = .enter
      case "E": code = .kpEnter
      case "<": code = .backspace
      case "|":
        nextGap += pause
        continue
      default: fatalError("no key for \(ch)")
      }
      presses.append((code, nextGap))
      nextGap = gap
    }
    return EvemuWriter.keyPresses(presses, name: name)
  }
}

/// A running `pinpadd` with its own temp folder, socket, state folder and log file.
/// Killed (SIGKILL) when dropped if still running.
final class RunningDaemon {
  let dir: TempDir
  let socket: String
  let stateDir: String
  let configPath: String
  let logPath: String
  let process = Process()
  private(set) var arguments: [String] = []

  /// Starts pinpadd. `config` is written to `pinpadd.conf`; `keys` (a recording, see
  /// `E2E.recording`) becomes `--input replay:` (or replay-fast). With no keys an
  /// empty recording keeps the daemon running without input.
  init(
    config: String = "", recording: String? = nil, fast: Bool = false,
    display: String = "none", logLevel: String = "debug", dir: TempDir = TempDir(),
    socketPath: String? = nil,
    extraArguments: [String] = [], launcher: [String] = [], waitForSocket: Bool = true,
    stdout: FileHandle? = nil
  ) throws {
    _ = E2E.ignorePipes
    self.dir = dir
    socket = socketPath ?? dir.file("run/pinpadd.sock")
    stateDir = dir.file("state")
    configPath = dir.write("pinpadd.conf", config)
    let recordingPath = dir.write(
      "keys-\(UInt32.random(in: 0...UInt32.max)).txt", recording ?? E2E.recording(""))
    logPath = dir.file("daemon-\(UInt32.random(in: 0...UInt32.max)).log")
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    arguments = [
      "--config", configPath, "--input", (fast ? "replay-fast:" : "replay:") + recordingPath,
      "--display", display, "--socket", socket, "--state-dir", stateDir,
      "--log-level", logLevel,
    ]
    arguments += extraArguments
    if launcher.isEmpty {
      process.executableURL = URL(fileURLWithPath: E2E.pinpadd)
      process.arguments = arguments
    } else {
      process.executableURL = URL(fileURLWithPath: launcher[0])
      process.arguments = Array(launcher.dropFirst()) + [E2E.pinpadd] + arguments
    }
    let logHandle = FileHandle(forWritingAtPath: logPath)
    process.standardError = logHandle
    process.standardOutput = stdout ?? FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    try? logHandle?.close()
    if waitForSocket {
      // A fast replay's code waits for the first client: a probe that connected would be
      // handed it (and lose it, as the probe goes), so that wait asks the kernel whether
      // the socket listens. Other runs connect, at once: a timed replay's first keys come
      // 50 ms after the start, and the test's client must be there by then.
      let fastReplay = arguments.contains { $0.hasPrefix("replay-fast:") }
      // 30 s: a debug build's start is well under a second, but on a CI machine with
      // every core taken a whole test process was seen to stall for 11 s.
      let up = E2E.waitUntil(timeout: 30) {
        (fastReplay ? self.isListening() : self.isAnswering()) || !self.process.isRunning
      }
      guard up, process.isRunning else {
        throw DaemonFailed(log: log, status: process.isRunning ? nil : process.terminationStatus)
      }
    }
  }

  deinit { kill() }

  var pid: Int32 { process.processIdentifier }
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
  var isRunning: Bool { process.isRunning }

  /// A socket is listening at `socket` (/proc/net/unix: flag __SO_ACCEPTCON, 0x10000),
  /// found without connecting to it.
  func isListening() -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else {
      return false
    }
    return table.split(separator: "\n").dropFirst().contains { line in
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 8, let flags = Int(fields[3], radix: 16) else { return false }
      return flags & 0x10000 != 0 && fields[7] == socket
    }
  }

  func isAnswering() -> Bool {
    guard let client = try? TestClient(path: socket, expectHello: false) else { return false }
    client.close()
    return true
  }

  func connect() throws -> TestClient { try TestClient(path: socket) }

  func signal(_ number: Int32) { _ = Glibc.kill(pid, number) }

  /// SIGTERM, then the exit status (nil when it did not exit within `timeout`; then it
  /// is killed).
  @discardableResult
  func stop(timeout: Double = 5) -> Int32? {
    guard process.isRunning else { return process.terminationStatus }
    signal(SIGTERM)
    return waitExit(timeout: timeout)
  }

  func waitExit(timeout: Double) -> Int32? {
    if E2E.waitUntil(timeout: timeout, { !process.isRunning }) {
      process.waitUntilExit()
      return process.terminationStatus
    }
    kill()
    return nil
  }

  func kill() {
    if process.isRunning {
      _ = Glibc.kill(pid, SIGKILL)
      process.waitUntilExit()
    }
  }
}

struct DaemonFailed: Error, CustomStringConvertible {
  var log: String
  var status: Int32?
  var description: String {
    "pinpadd did not come up (status \(status.map(String.init) ?? "-")):\n\(log)"
  }
}

/// A raw client of the daemon's socket: bytes out, JSON lines in, every read bounded.
///
/// Its socket has one owner, which closes it once: a failed connect in `init` used to
/// close the number there and again in `deinit`, and the second close hit whatever
/// another test had opened under that number meanwhile (issue 19).
final class TestClient {
  private var socket: OwnedDescriptor
  /// The socket's number (-1 once closed).
  var fd: Int32 { socket.fd.rawValue }
  private var buffer: [UInt8] = []
  private(set) var closedByPeer = false
  var hello: [String: Any] = [:]
  /// Set for a daemon in this process (`DaemonHarness`): called while waiting, so the
  /// daemon's loop turns instead of this thread sleeping in poll.
  let pump: (() -> Void)?

  init(path: String, expectHello: Bool = true, pump: (() -> Void)? = nil) throws {
    _ = E2E.ignorePipes
    self.pump = pump
    do { socket = try UnixSocket.connect(path: path) } catch {
      throw ClientError("connect \(path): \(error)")
    }
    if expectHello {
      guard let first = try next(timeout: 5) else { throw ClientError("no hello") }
      hello = first
    }
  }

  func close() { socket.close() }

  /// Writes `text` (all of it, blocking); false when the daemon has gone.
  @discardableResult
  func sendRaw(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    // With a daemon in this process, a full socket waits for its loop to turn.
    let flags = Int32(MSG_NOSIGNAL) | (pump == nil ? 0 : Int32(MSG_DONTWAIT))
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, flags)
      }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN, let pump {
          pump()
          continue
        }
        return false
      }
      offset += n
    }
    return true
  }

  @discardableResult
  func send(_ text: String) -> Bool { sendRaw(Array(text.utf8)) }

  @discardableResult
  func send(json: [String: Any]) -> Bool {
    let data = try! JSONSerialization.data(withJSONObject: json)
    return sendRaw(Array(data) + [0x0A])
  }

  /// The next raw line (without newline), nil at end of stream or after `timeout`.
  func nextLine(timeout: Double) -> String? {
    let end = E2E.now() + timeout
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      if closedByPeer { return nil }
      let left = end - E2E.now()
      if left <= 0 { return nil }
      pump?()
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, pump == nil ? Int32(max(1, left * 1000)) : 0)
      if ready < 0 && errno == EINTR { continue }
      if ready <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = Glibc.recv(fd, &chunk, chunk.count, 0)
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        closedByPeer = true
        continue
      }
      if n == 0 {
        closedByPeer = true
        continue
      }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }

  /// The next JSON object line.
  func next(timeout: Double) throws -> [String: Any]? {
    guard let line = nextLine(timeout: timeout) else { return nil }
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    else { throw ClientError("not a JSON object: \(line)") }
    return object
  }

  /// Reads until a message of `type` (matching `where`) arrives; the others read on the
  /// way are returned too. nil when it did not come within `timeout`.
  func waitFor(
    _ type: String, timeout: Double = 5, where condition: ([String: Any]) -> Bool = { _ in true }
  ) throws -> (message: [String: Any], before: [[String: Any]])? {
    let end = E2E.now() + timeout
    var before: [[String: Any]] = []
    while E2E.now() < end {
      guard let message = try next(timeout: end - E2E.now()) else { return nil }
      if message["type"] as? String == type, condition(message) { return (message, before) }
      before.append(message)
    }
    return nil
  }

  /// True when the daemon closes this connection within `timeout`.
  func closesWithin(_ timeout: Double) -> Bool {
    let end = E2E.now() + timeout
    while E2E.now() < end {
      if nextLine(timeout: end - E2E.now()) == nil, closedByPeer { return true }
    }
    return closedByPeer
  }

  /// `status` round trip.
  func status(timeout: Double = 5) throws -> [String: Any]? {
    send(json: ["type": "status"])
    return try waitFor("status", timeout: timeout)?.message
  }
}

extension Dictionary where Key == String, Value == Any {
  func string(_ key: String) -> String? { self[key] as? String }
  func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
}
