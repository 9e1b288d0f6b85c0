import PinpadCore
import PinpadSystem

/// A failure to start: the exit code (SPEC §1) and one line for the person.
public struct StartError: Error, CustomStringConvertible {
  public var exitCode: Int32
  public var description: String
  public init(_ exitCode: Int32, _ description: String) {
    self.exitCode = exitCode
    self.description = description
  }
  public static func unavailable(_ text: String) -> StartError { StartError(69, text) }
  public static func configuration(_ text: String) -> StartError { StartError(78, text) }
}

/// The running daemon: inputs feed per-keypad entry machines, their actions go to
/// the socket and the screen, deadlines go to one timer. Everything happens on the
/// event loop's thread.
public final class Daemon {
  let options: Options
  var config: Configuration
  let log: Logger
  let loop: EventLoop
  let signals: SignalReader
  let deadlineTimer: Timer
  var watchdogTimer: Timer?

  var machines: [String: EntryMachine] = [:]
  var attempts: AttemptBook
  var presenter = ScreenPresenter()
  /// The on-screen key a touch or click holds.
  var padPress = PadPress()
  /// The keypad whose entry the screen shows: the last one used.
  var activeKeypad: String? = nil
  var display: Display = NoDisplay()
  var lastModel: ScreenModel? = nil
  var inputs: [InputSource] = []
  var server: SocketServer?
  var listener: FileDescriptor?
  /// The socket file this process created and removes on exit (nil under systemd),
  /// with the inode it bound: only that file is removed, never a successor's socket.
  var ownedSocketPath: String?
  var ownedSocketIdentity: FileIdentity?
  var lockout: LockoutStore
  var savedLockouts: [String: LockoutState] = [:]
  /// Keypads of `savedLockouts` read from corrupt lines (conservatively locked).
  var guessedLockouts = Set<String>()
  var statePersistent = true
  /// Why the last lockout save failed, nil when the file is up to date.
  var lockoutSaveError: String?
  /// When a failed save is tried again (monotonic clock).
  var lockoutRetry: Instant?
  /// The latest time handed to the core (never goes back).
  var lastNow = Instant.zero
  /// How far the core's time runs ahead of the monotonic clock: a fast replay stamps
  /// events with their recorded offsets. The core's time keeps running from there.
  var lead: Duration = .zero
  var exitCode: Int32 = 0
  var random = SystemRandom()

  /// Sets everything up; on failure all that was taken is given back before throwing.
  public init(options: Options, config: Configuration, signals: SignalReader, log: Logger)
    throws(StartError)
  {
    self.options = options
    self.config = config
    self.log = log
    self.signals = signals
    lockout = LockoutStore(directory: options.stateDirectory)
    let prefix = FileSystem.randomBytes(4).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
      .joined()
    attempts = AttemptBook(idPrefix: prefix)
    do {
      loop = try EventLoop()
      deadlineTimer = try Timer()
    } catch {
      throw .unavailable("cannot create the event loop: \(error)")
    }
    do {
      try setUp()
    } catch {
      tearDown()
      throw error
    }
  }

  private func setUp() throws(StartError) {
    do {
      try loop.watch(signals.fd, .readable) { [unowned self] _ in self.handleSignals() }
      try loop.watch(deadlineTimer.fd, .readable) { [unowned self] _ in
        self.deadlineTimer.acknowledge()
        self.tick()
      }
    } catch {
      throw .unavailable("cannot watch signals: \(error)")
    }
    try loadLockouts()
    try openSocket()
    try openDisplay()
    try openInputs()
    if let interval = Systemd.watchdogInterval() {
      do {
        let timer = try Timer()
        try loop.watch(timer.fd, .readable) { [unowned timer] _ in
          timer.acknowledge()
          Systemd.notify("WATCHDOG=1")
        }
        timer.arm(at: Clock.monotonic(), interval: .nanoseconds(interval.nanoseconds / 2))
        watchdogTimer = timer
      } catch {
        throw .unavailable("cannot start the watchdog timer: \(error)")
      }
    }
  }

  /// Runs until SIGTERM/SIGINT (or Ctrl-C on the terminal input); returns the exit code.
  public func run() -> Int32 {
    // Keys typed before the first screen invited them are not an entry.
    for case let terminal as TerminalInput in inputs { terminal.discardTypeAhead() }
    redraw()
    if config.display.onScreenKeypad, let keys = display.layout?.padKeyRects, !keys.isEmpty {
      // Where the cells are, not which digit each holds (a scrambled layout stays secret).
      let centres = keys.map { "\($0.midX),\($0.midY)" }.joined(separator: " ")
      log.debug("on-screen keypad: key centres in reading order \(centres)")
    }
    Systemd.notify("READY=1\nSTATUS=Waiting for keys")
    log.info("pinpadd \(pinpaddVersion) ready")
    do {
      try loop.run { [unowned self] in self.afterEvents() }
    } catch {
      log.error("event loop failed: \(error)")
      exitCode = 1
    }
    Systemd.notify("STOPPING=1")
    tearDown()
    return exitCode
  }

  /// Gives back everything, in reverse order of taking it. Safe to call twice.
  func tearDown() {
    for input in inputs { input.close() }
    inputs = []
    for name in Array(machines.keys) { machines[name] = nil }
    attempts.wipeAll()
    log.divert = nil  // from here on, log lines go to stderr again
    display.close()
    server?.shutdown()
    server = nil
    if let listener {
      listener.close()
      self.listener = nil
    }
    if let ownedSocketPath {
      if let ownedSocketIdentity,
        !FileSystem.remove(ownedSocketPath, ifStill: ownedSocketIdentity)
      {
        log.warning(
          "socket: \(ownedSocketPath) is no longer the socket this process bound; left in place")
      }
      self.ownedSocketPath = nil
    }
  }

  /// The core's "now": the monotonic clock plus the lead a fast replay gave it, never
  /// behind a time already handed to the core.
  func now() -> Instant {
    lastNow = max(lastNow, Clock.monotonic() + lead)
    return lastNow
  }

  /// An input event stamped `time`: the core gets that time (or the last one, if it
  /// is older); a stamp ahead of the clock moves the lead.
  func advance(to time: Instant) -> Instant {
    lead = max(lead, time - Clock.monotonic())
    lastNow = max(lastNow, time)
    return lastNow
  }

  private func handleSignals() {
    for signo in signals.read() {
      switch signo {
      case SignalNumbers.hangup: reload()
      case SignalNumbers.terminate, SignalNumbers.interrupt:
        log.info("stopping on signal \(signo)")
        loop.stop()
      default:
        (display as? FramebufferDisplay)?.handleSignal(signo)
        lastModel = nil  // an acquired VT is redrawn whole
      }
    }
  }

  /// SIGHUP: re-read the configuration. A bad file keeps the old one in force.
  func reload() {
    let loaded: Configuration
    do {
      loaded = try ConfigLoader.load(path: options.configPath, required: options.configPathGiven)
    } catch {
      log.error("reload failed, keeping the old configuration: \(error)")
      return
    }
    if loaded.socket != config.socket {
      log.warning("reload: [Socket] changes take effect at the next start")
    }
    var displayKeys = loaded.display
    displayKeys.prompt = config.display.prompt
    displayKeys.keypadLayout = config.display.keypadLayout
    if displayKeys != config.display {
      log.warning(
        "reload: [Display] Output, Device, Font, OnScreenKeypad and SnapshotSize take effect at the next start"
      )
    }
    config.entry = loaded.entry
    config.lockout = loaded.lockout
    config.display.prompt = loaded.display.prompt
    config.display.keypadLayout = loaded.display.keypadLayout
    config.keypads = loaded.keypads
    if let console = display as? ConsoleDisplay { console.hint = terminalHint }
    for case let devices as KeypadDevices in inputs { devices.reconfigure(keypads: loaded.keypads) }
    let now = now()
    for name in Array(machines.keys) {
      let actions = machines[name]!.reconfigure(
        rules: config.entry, lockout: config.lockout, now: now)
      perform(actions, keypad: name, now: now)
    }
    log.info("configuration reloaded")
  }

  /// After each batch of events: the screen and the one deadline timer.
  private func afterEvents() {
    let now = now()
    var deadlines: [Instant] = machines.values.compactMap(\.nextDeadline)
    if let d = presenter.nextDeadline(machine: activeMachine, now: now) { deadlines.append(d) }
    // The core's deadlines are in its time (clock + lead); the attempts' in clock time.
    var clockDeadlines = deadlines.map { $0 - lead }
    if let d = attempts.nextDeadline { clockDeadlines.append(d) }
    if let d = lockoutRetry { clockDeadlines.append(d) }
    deadlineTimer.arm(at: clockDeadlines.min())
    redraw()
  }

  var activeMachine: EntryMachine? { activeKeypad.flatMap { machines[$0] } }

  func redraw() {
    let model = presenter.model(
      machine: activeMachine, rules: config.entry, display: config.display, now: now())
    guard model != lastModel else { return }
    lastModel = model
    display.show(model)
  }
}

/// Signal numbers without importing Glibc everywhere.
public enum SignalNumbers {
  public static let hangup: Int32 = 1
  public static let interrupt: Int32 = 2
  public static let terminate: Int32 = 15
}

/// A RandomNumberGenerator over getrandom(2) (scrambled keypad layouts).
struct SystemRandom: RandomNumberGenerator {
  mutating func next() -> UInt64 {
    FileSystem.randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) }
  }
}
