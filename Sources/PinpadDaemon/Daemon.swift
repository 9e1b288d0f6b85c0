import PinpadCore
import PinpadProgram
import PinpadSystem

/// The running daemon, an I/O shell around the `Session`: it turns what the inputs, the
/// socket, the signals and the timer bring into `SessionEvent`s and carries out the
/// `Effect`s that come back. Everything happens on the event loop's thread.
public final class Daemon {
  let options: Options
  let log: Logger
  let loop: EventLoop
  let signals: SignalReader
  let deadlineTimer: Timer
  var watchdogTimer: Timer?
  // `session`, `effects`, `caused` and `sending` are touched for every key, from this
  // loop's thread only, and never while another access to the same one is open: each
  // is read or changed by one statement of `send` or `handleAndPerform`, neither of
  // which runs inside the other (a `send` while one is under way only queues). So they
  // go without the run-time exclusivity check (two calls into the runtime per access).
  // So does `server`, read by most effects: set at start, from the same thread, by a
  // statement that holds no other access to it. With the check, these five cost 5 000
  // more instructions per code of the closed loop (12 % of 41 700) and 680 more per
  // press of a fast replay (17 % of 3 900; bench/README.md, issue 42); `display`, read
  // once a frame, and the doors, once a batch, keep it (under 1 %).
  @exclusivity(unchecked) var session: Session
  var display: Display = NoDisplay()
  var inputs: [InputSource] = []
  /// The socket server; it owns the listening socket.
  @exclusivity(unchecked) var server: SocketServer?
  /// The socket file this process bound and removes on exit (nil under systemd).
  var socketFile: BoundSocketFile?
  let lockout: LockoutStore
  /// The monotonic clock the session and the doors are told (CLOCK_MONOTONIC; a test
  /// harness gives a manual one).
  let clock: () -> Instant
  /// Set while the loop runs and an effect asked to leave it.
  var exitCode: Int32 = 0
  /// Run after each reload has been carried out (pinpadd's main: unlocks the read-only
  /// file mappings the reload made, which `mlockall`'s MCL_FUTURE locked).
  public var afterReload: (() -> Void)?
  /// `send`'s effect buffer, emptied after each event and kept, so an event allocates
  /// no array.
  @exclusivity(unchecked) private var effects: [Effect] = []
  /// Events that carrying out an effect caused (`codeSent`, `lockoutsSaved`, or any
  /// other `send` while one is under way): queued and fed after the effect loop that
  /// caused them, in order, so the session is never re-entered mid-list.
  @exclusivity(unchecked) private var caused: [SessionEvent] = []
  @exclusivity(unchecked) private var sending = false
  /// The `[Door]`s (pinpadd.conf(5), [Door NAME]) and their GPIO lines.
  let doors: DoorControl
  /// The keypads' LEDs and beepers (pinpadd.conf(5), Feedback=).
  let feedback: FeedbackControl

  var config: Configuration { session.config }

  /// Sets everything up; on failure all that was taken is given back before throwing.
  /// `inputs` replaces the ones `--input` names (a test harness's own, started here);
  /// `clock` replaces CLOCK_MONOTONIC for everything the session and the doors decide.
  public init(
    options: Options, config: Configuration, signals: SignalReader, log: Logger,
    inputs given: [InputSource]? = nil, clock: @escaping () -> Instant = Clock.monotonic
  ) throws(StartError) {
    self.options = options
    self.log = log
    self.signals = signals
    self.clock = clock
    lockout = LockoutStore(directory: options.stateDirectory)
    let saved = try LockoutFile.load(
      directory: options.stateDirectory, config: config, log: log, now: clock())
    session = Session(
      settings: .init(
        version: pinpaddVersion, persistent: options.stateDirectory != "none",
        screenKeypad: KeypadDevices.screenKeypad, logLevel: options.logLevel),
      config: config, saved: saved, random: SystemRandom(), idRandom: SystemRandom())
    doors = DoorControl(config.doors, log: log, clock: clock)
    feedback = FeedbackControl(
      keypads: config.keypads, doors: config.doors, log: log, clock: clock)
    do {
      loop = try EventLoop()
      deadlineTimer = try Timer()
    } catch {
      throw .unavailable("cannot create the event loop: \(error)")
    }
    do {
      try setUp(inputs: given)
    } catch {
      tearDown()
      throw error
    }
  }

  /// Runs until SIGTERM/SIGINT (or Ctrl-C on the terminal input); returns the exit code.
  public func run() -> Int32 {
    begin()
    do {
      try loop.run { [unowned self] in self.afterEvents() }
    } catch {
      log.error("event loop failed: \(error)")
      exitCode = 1
    }
    return finish()
  }

  /// The first screen: what `run` does before its loop.
  func begin() {
    // Keys typed before the first screen invited them are not an entry.
    for case let terminal as TerminalInput in inputs { terminal.discardTypeAhead() }
    send(.start)
    if config.display.onScreenKeypad, let keys = display.layout?.padKeyRects, !keys.isEmpty {
      // Where the cells are, not which digit each holds (a scrambled layout stays secret).
      let centres = keys.map { "\($0.midX),\($0.midY)" }.joined(separator: " ")
      log.debug("on-screen keypad: key centres in reading order \(centres)")
    }
  }

  /// One turn of the loop (what `run` repeats): the descriptors ready within
  /// `timeoutMilliseconds`, then the screen and the timer. Returns how many were ready;
  /// `loop.stopped` tells when a stop was asked.
  @discardableResult
  func turn(timeoutMilliseconds: Int32) -> Int {
    do {
      return try loop.turn(timeoutMilliseconds: timeoutMilliseconds) { [unowned self] in
        self.afterEvents()
      }
    } catch {
      log.error("event loop failed: \(error)")
      exitCode = 1
      loop.stop()
      return 0
    }
  }

  /// What `run` does after its loop; returns the exit code.
  func finish() -> Int32 {
    Systemd.notify("STOPPING=1")
    tearDown()
    return exitCode
  }

  /// The deadline timer's work: the session's and the doors' deadlines that are due.
  func tick() {
    send(.tick)
    doors.tick()
    feedback.tick()
  }

  /// The next instant the session or a door has something to do (nil: none).
  var nextDeadline: Instant? {
    func earlier(_ a: Instant?, _ b: Instant?) -> Instant? {
      guard let a, let b else { return a ?? b }
      return min(a, b)
    }
    return earlier(
      earlier(session.nextWakeupInPlace(), doors.nextDeadline), feedback.nextDeadline)
  }

  /// Hands `event` to the session and carries out what it asks for; then the events
  /// those effects caused, one after the other, until none is left. Called while an
  /// effect is being carried out, it only queues `event`.
  func send(_ event: SessionEvent) {
    if sending {
      caused.append(event)
      return
    }
    sending = true
    defer { sending = false }
    handleAndPerform(event)
    // Each copied out (a swap would save 330 instructions per code, under 1 %).
    var next = 0
    while next < caused.count {
      handleAndPerform(caused[next])
      next += 1
    }
    caused.empty()
  }

  /// One event into the session, then each effect it asked for (borrowed: an event is
  /// not copied on its way in).
  private func handleAndPerform(_ event: SessionEvent) {
    session.handle(event, now: clock(), into: &effects)
    // In order, each swapped out of the buffer for a `.stop` (which has nothing to
    // release): no effect is copied (a `for` over the buffer copies each, 2 200 more
    // instructions per code of the closed loop, 5 % of 41 700; bench/README.md).
    // `perform` never touches `effects` (what it causes waits in `caused`); the buffer
    // is emptied after, its storage kept.
    var index = 0
    while index < effects.count {
      var effect = Effect.stop
      swap(&effect, &effects[index])
      perform(effect)
      index += 1
    }
    effects.empty()
  }

  private func perform(_ effect: Effect) {
    feedback.observe(effect)
    switch effect {
    case .broadcast(let message): server?.broadcast(message)
    case .reply(let serial, let message): server?.reply(message, toSerial: serial)
    case .sendCode(let id, let keypad, let digits, let card):
      let sent = server?.sendCode(id: id, keypad: keypad, digits: digits, card: card) ?? 0
      send(.codeSent(id: id, clients: sent, connected: server?.count ?? 0))
    case .dropUnreadCode(let id): server?.dropUnreadSecrets(of: id)
    case .attemptGranted(let id, let keypad): doors.granted(id: id, keypad: keypad)
    case .show(let model): display.show(model)
    case .persistLockouts(let states, let at):
      // With the socket's reserve descriptor: clients holding every other one must
      // not stop a lockout from being kept.
      let failure = LockoutFile.save(states, at: at, to: lockout, reserve: server)
      send(.lockoutsSaved(failure: failure))
    case .notify(let line): Systemd.notify(line)
    case .log(let level, let line): log.log(level, line)
    case .reconfigure(let config):
      server?.lines.forget()
      if let console = display as? ConsoleDisplay {
        console.hint = DisplaySetup.hint(
          display, terminalInput: options.inputs.contains(.terminal), config.entry)
      }
      for case let devices as KeypadDevices in inputs {
        devices.reconfigure(keypads: config.keypads)
      }
      feedback.reconfigure(keypads: config.keypads, doors: config.doors)
    case .stop: loop.stop()
    }
  }

  /// After each batch of events: the screen, then the one timer.
  private func afterEvents() {
    // The batch's end only draws the screen: without one (`--display none`) it would
    // be an event per turn of the loop that nothing reads.
    if session.drawsScreen { send(.endOfBatch) }
    deadlineTimer.fire(by: nextDeadline)
  }

  func handleSignals() {
    for signo in signals.read() {
      switch signo {
      case SignalNumbers.hangup: reload()
      case SignalNumbers.terminate, SignalNumbers.interrupt:
        send(.quit(reason: "stopping on signal \(signo)"))
      default:
        (display as? VirtualTerminalHolder)?.handleSignal(signo)
        send(.screenLost)  // an acquired VT is redrawn whole
      }
    }
  }

  /// SIGHUP: re-read the configuration. A bad file keeps the old one in force.
  func reload() {
    do {
      send(
        .reload(
          try ConfigLoader.load(path: options.configPath, required: options.configPathGiven)))
    } catch {
      log.error("reload failed, keeping the old configuration: \(error)")
    }
    afterReload?()
  }

  /// An event from an input that feeds `keypad`.
  func input(_ event: SourceEvent, keypad: String) {
    // Each case sent as it is built: an event made first and sent after is copied,
    // 190 more instructions per press of a fast replay (5 % of 3 900; bench/README.md).
    switch event {
    case .quit: send(.quit(reason: "stopping: Ctrl-C or hang-up on the terminal input"))
    case .deviceAdded(let path, let role):
      send(.deviceAdded(keypad: keypad, path: path, role: role))
    case .deviceRemoved(let path, let role):
      send(.deviceRemoved(keypad: keypad, path: path, role: role))
    case .dropped(let time): send(.dropped(keypad: keypad, stamp: time))
    case .key(let code, let value, let time):
      send(.key(keypad: keypad, code, value: value, stamp: time))
    case .cardKey(let code, let value, let time):
      send(.cardKey(keypad: keypad, code, value: value, stamp: time))
    case .cardDropped: send(.cardDropped(keypad: keypad))
    case .pointer(let action, let time):
      let point: (x: Int, y: Int)
      switch action {
      case .pressed(let x, let y), .moved(let x, let y), .released(let x, let y): point = (x, y)
      }
      let key = display.padKey(atX: point.x, y: point.y)
      send(.padPress(keypad: keypad, action, key: key, stamp: time))
    case .pointerLost: send(.pointerLost)
    }
  }

  /// A client's request, answered by the session.
  func request(_ request: ClientRequest, from client: SocketClient) {
    switch request {
    case .status:
      let shell = ShellStatus(
        inputs: inputs.map(\.name), clients: server?.count ?? 0,
        queuedBytes: server?.bytesWaiting() ?? 0, doors: doors.status)
      send(.status(client: client.serial, shell))
    case .open(let door):
      if let error = doors.open(door: door, client: client.serial) {
        server?.reply(.error(error), to: client)
      }
    case .verdict(let id, let granted, let message, let duress, let reason):
      send(
        .verdict(
          id: id, granted: granted, message: message, duress: duress, reason: reason,
          client: client.serial))
    }
  }

  /// Gives back everything, in reverse order of taking it. Safe to call twice.
  func tearDown() {
    doors.lockAll()  // the locks first
    feedback.restoreAll()  // the LEDs as they were, the beepers silent, before the close
    for input in inputs { input.close() }
    inputs = []
    feedback.devices = { [] }  // the inputs are let go
    session.end()
    log.divert = nil  // from here on, log lines go to stderr again
    display.close()
    server?.shutdown()
    server = nil
    socketFile?.remove(log: log)
    socketFile = nil
    doors.release()
  }
}
