import Foundation
import PinpadCore
import PinpadInput
import PinpadProgram
import PinpadSystem
import PinpadTestSupport
import Testing

@testable import PinpadDaemon

/// The real `Daemon` in this process, run one event-loop turn at a time on the test's
/// own thread, with a manual clock: keys are handed to it as the evdev input would hand
/// them (press and release, stamped with the manual clock), time passes only when the
/// test says so, and clients talk to it over its real Unix socket. Nothing sleeps: a
/// client waiting for a line turns the loop instead (`TestClient.pump`).
///
/// What only a process can show (signals, exit codes, argv and environment, the pty,
/// systemd's sockets) stays with `RunningDaemon`.
final class DaemonHarness {
  let dir: TempDir
  let socket: String
  let stateDir: String
  let configPath: String
  let daemon: Daemon
  let input = HarnessInput()
  private let clock: ManualClock
  private let sink = MemoryLogSink()
  private var finished: Int32?

  /// A daemon with `config` (written to `pinpadd.conf` and read by the real loader),
  /// its socket and state folder in `dir`, no display; `arguments` are added to the
  /// command line (`--log-level debug` unless they say otherwise).
  init(
    config: String = "", dir: TempDir = TempDir(), arguments: [String] = [],
    startingAt start: Instant = DaemonHarness.epoch
  ) throws {
    _ = E2E.ignorePipes
    self.dir = dir
    socket = dir.file("run/pinpadd.sock")
    stateDir = dir.file("state")
    configPath = dir.write("pinpadd.conf", config)
    let options = try Options(
      parsing: [
        "--config", configPath, "--display", "none", "--socket", socket,
        "--state-dir", stateDir, "--log-level", "debug",
      ] + arguments)
    let loaded = try ConfigLoader.load(path: configPath, required: true)
    clock = ManualClock(start)
    let clock = clock
    do {
      daemon = try Daemon(
        options: options, config: loaded, signals: try SignalReader(blocking: []),
        log: Logger(level: options.logLevel, sink: sink), inputs: [input],
        clock: { clock.now })
    } catch {
      throw HarnessFailed(description: "\(error)\n" + Self.text(of: sink))
    }
    daemon.begin()
    settle()
  }

  deinit { _ = stop() }

  /// Where the manual clock starts: far past CLOCK_MONOTONIC, so the daemon's real
  /// deadline timer (armed on this clock's instants) never fires by itself.
  static let epoch = Instant(nanoseconds: 1_000_000_000 * 1_000_000_000)

  var now: Instant { clock.now }

  /// Every log line so far, one per line.
  var log: String { Self.text(of: sink) }

  private static func text(of sink: MemoryLogSink) -> String {
    sink.lines.map(\.1).joined(separator: "\n")
  }

  var isRunning: Bool { finished == nil && !daemon.loop.stopped }

  /// One turn: what is ready within `milliseconds` (0: only what is ready now).
  @discardableResult
  func turn(milliseconds: Int32 = 0) -> Int {
    guard isRunning else { return 0 }
    return daemon.turn(timeoutMilliseconds: milliseconds)
  }

  /// Turns until a turn finds nothing ready (at most `limit` turns).
  func settle(limit: Int = 1000) {
    var turns = 0
    while turns < limit, isRunning, turn() > 0 { turns += 1 }
  }

  /// Runs `work` inside a turn, as a descriptor's handler would (the batch's screen and
  /// socket writes follow it), then settles.
  func inTurn(_ work: @escaping () -> Void) {
    guard isRunning else { return }
    daemon.loop.defer(work)
    turn()
    settle()
  }

  /// Moves the manual clock on by `seconds`, stopping at every deadline on the way (in
  /// order, as the timer would fire), then settles.
  func advance(_ seconds: Double) {
    let target = clock.now + .nanoseconds(Int64((seconds * 1e9).rounded()))
    var ticks = 0
    while isRunning, ticks < 10_000, let due = daemon.nextDeadline, due <= target {
      if due > clock.now { clock.now = due }
      inTurn { [daemon] in daemon.tick() }
      ticks += 1
    }
    if target > clock.now { clock.now = target }
    inTurn { [daemon] in daemon.tick() }
  }

  /// One key on `keypad` (the default keypad when nil): press and release at the clock's
  /// time, each in a batch of its own as from a real keypad.
  func press(_ code: KeyCode, keypad: String? = nil) {
    let keypad = keypad ?? daemon.session.defaultKeypad
    let at = clock.now
    inTurn { [input] in input.deliver?(keypad, .key(code, value: 1, time: at)) }
    inTurn { [input] in input.deliver?(keypad, .key(code, value: 0, time: at)) }
  }

  /// Types `keys` (the letters of `E2E.recording`: digits, `\n` Enter, `E` KP Enter,
  /// `<` Backspace, `|` a pause of `pause` seconds), `gap` seconds apart.
  func type(
    _ keys: String, keypad: String? = nil, numeric: Bool = false, gap: Double = 0.1,
    pause: Double = 0.5
  ) {
    for ch in keys {
      switch ch {
      case "0"..."9":
        let digit = UInt8(String(ch))!
        press(numeric ? .keypad(digit) : .mainRow(digit), keypad: keypad)
      case "\n": press(.enter, keypad: keypad)
      case "E": press(.kpEnter, keypad: keypad)
      case "<": press(.backspace, keypad: keypad)
      case "|":
        advance(pause)
        continue
      default: fatalError("no key for \(ch)")
      }
      advance(gap)
    }
  }

  /// What a card reader on `keypad` sends for `digits` then Enter: keypad-digit keys
  /// `gap` seconds apart (pinpadd(8), CARD READERS), as the reader's device would deliver
  /// them.
  func swipe(_ digits: String, keypad: String, gap: Double = 0.01) {
    for ch in digits + "\n" {
      let code: KeyCode = ch == "\n" ? .kpEnter : .keypad(UInt8(String(ch))!)
      let at = clock.now
      inTurn { [input] in input.deliver?(keypad, .cardKey(code, value: 1, time: at)) }
      inTurn { [input] in input.deliver?(keypad, .cardKey(code, value: 0, time: at)) }
      advance(gap)
    }
  }

  /// Turns the loop (real time, 5 ms a turn) until `condition` holds or `timeout`
  /// seconds pass: for another process talking to this daemon.
  @discardableResult
  func turn(until condition: () -> Bool, timeout: Double = 10) -> Bool {
    let end = E2E.now() + timeout
    while !condition(), E2E.now() < end, isRunning { turn(milliseconds: 5) }
    return condition()
  }

  /// A client of the real socket whose waits turn this loop.
  func connect(expectHello: Bool = true) throws -> TestClient {
    try TestClient(
      path: socket, expectHello: expectHello,
      pump: { [weak self] in
        self?.turn(milliseconds: 5)
      })
  }

  /// What SIGTERM does (the session's quit), then the way out; the exit code.
  @discardableResult
  func stop() -> Int32 {
    if let finished { return finished }
    if !daemon.loop.stopped {
      inTurn { [daemon] in daemon.send(.quit(reason: "stopping on signal 15")) }
    }
    let code = daemon.finish()
    finished = code
    return code
  }
}

/// The harness's input: what it is handed goes straight to the daemon, as a keypad's
/// events would.
final class HarnessInput: InputSource, FeedbackDevices {
  let name = "harness"
  /// The devices whose LEDs and beeper the daemon's feedback writes to (simulated ones).
  var feedbackDevices: [(keypad: String, device: EvdevDevice)] = []
  private(set) var deliver: ((String, SourceEvent) -> Void)?
  func start(loop: EventLoop, deliver: @escaping (String, SourceEvent) -> Void) {
    self.deliver = deliver
  }
  func close() {
    deliver = nil
    feedbackDevices = []
  }
}

/// The harness's clock, shared with the daemon's closure.
final class ManualClock {
  var now: Instant
  init(_ start: Instant) { now = start }
}

struct HarnessFailed: Error, CustomStringConvertible {
  var description: String
}
