import PinpadCore
import PinpadScreen
import PinpadSystem

/// Keys in, actions out: the part of the daemon between inputs and the entry core.
extension Daemon {
  func machine(for keypad: String) -> EntryMachine {
    if let machine = machines[keypad] { return machine }
    let machine = EntryMachine(
      rules: config.entry, lockout: config.lockout,
      state: savedLockouts[keypad] ?? savedLockouts["*"] ?? LockoutState())
    machines[keypad] = machine
    return machine
  }

  /// An event from an input that feeds `keypad`.
  func handle(_ event: SourceEvent, keypad: String) {
    switch event {
    case .quit:
      log.info("stopping: Ctrl-C or hang-up on the terminal input")
      loop.stop()
    case .deviceAdded(let path):
      log.info("keypad \(keypad): \(path) added")
      server?.broadcast(DaemonMessage.keypad(name: keypad, added: true, device: path))
    case .deviceRemoved(let path):
      log.info("keypad \(keypad): \(path) removed")
      server?.broadcast(DaemonMessage.keypad(name: keypad, added: false, device: path))
    case .dropped(let time):
      let now = advance(to: time)
      log.warning("keypad \(keypad): events lost in the kernel (SYN_DROPPED), entry wiped")
      feed(.eventsDropped, keypad: keypad, now: now)
    case .key(let code, let value, let time):
      let now = advance(to: time)
      if value == 1 {
        // Plymouth's habit: key events only at debug level, and never which digit.
        log.debug("keypad \(keypad): \(code.digit == nil ? code.name : "digit key") pressed")
        if activeKeypad != keypad || presenter.hasResult {
          activeKeypad = keypad
          presenter.keyPressed()
        }
      }
      feed(.key(code, value: value), keypad: keypad, now: now)
    case .pointer(let action, let time):
      let now = advance(to: time)
      pointer(action, keypad: keypad, now: now)
    case .pointerLost:
      padPress.cancel()
      presenter.pressedPadKey = nil
    }
  }

  /// A touch or click on the on-screen keypad: the key under it shows pressed, and a
  /// release on the key it went down on types that key into the keypad's entry (the
  /// screen's keypad unless a `[Keypad]` section claimed the pointer).
  func pointer(_ action: PointerAction, keypad: String, now: Instant) {
    guard config.display.onScreenKeypad else { return }
    let point: (x: Int, y: Int)
    switch action {
    case .pressed(let x, let y), .moved(let x, let y), .released(let x, let y): point = (x, y)
    }
    let key = display.padKey(atX: point.x, y: point.y)
    let activated = padPress.handle(action, key: key)
    presenter.pressedPadKey = padPress.shown
    guard let activated, let code = activated.keyCode(rules: config.entry) else { return }
    let target = keypad == KeypadDevices.screenKeypad ? (activeKeypad ?? defaultKeypad) : keypad
    log.debug("on-screen keypad: \(activated.isDigit ? "digit key" : code.name) pressed")
    handle(.key(code, value: 1, time: now), keypad: target)
    handle(.key(code, value: 0, time: now), keypad: target)
  }

  func feed(_ input: EntryInput, keypad: String, now: Instant) {
    _ = machine(for: keypad)
    let actions = machines[keypad]!.handle(input, now: now)
    perform(actions, keypad: keypad, now: now)
  }

  /// Carries out what the core asked for.
  func perform(_ actions: [EntryAction], keypad: String, now: Instant) {
    for action in actions {
      switch action {
      case .entry(let event, let length):
        server?.broadcast(DaemonMessage.entry(keypad: keypad, event: event, length: length))
        if event == .started, config.display.keypadLayout == .scrambled {
          presenter.padCells = ScrambledLayout.make(using: &random)
        }
        if event == .timeout { log.info("keypad \(keypad): entry timed out") }
      case .submit(let digits):
        submit(digits, keypad: keypad, now: now)
      case .feedback(let feedback):
        presenter.showFeedback(feedback, now: now)
      case .lockout(let seconds):
        log.warning("keypad \(keypad): locked out for \(seconds) s after repeated denials")
        server?.broadcast(DaemonMessage.lockout(keypad: keypad, seconds: seconds))
        saveLockouts()
      case .screenChanged:
        break  // the screen is redrawn after every batch of events when its model changed
      }
    }
  }

  /// A completed code: to every client now, or held until one connects.
  func submit(_ digits: SecretDigits, keypad: String, now: Instant) {
    // Socket timeouts run on the real clock, whatever time a replay gives the core.
    let id = attempts.add(
      keypad: keypad, digits: digits,
      deadline: Clock.monotonic() + config.socket.deliveryTimeout)
    log.info("keypad \(keypad): code submitted as attempt \(id)")
    Systemd.notify("STATUS=Checking attempt \(id)")
    deliverWaitingCodes()
    if server?.count ?? 0 == 0 {
      log.warning(
        "attempt \(id): no controller connected, waiting up to \(config.socket.deliveryTimeout.seconds) s"
      )
    }
  }

  /// Sends every held code to the connected clients and wipes it.
  func deliverWaitingCodes() {
    guard let server, server.count > 0 else { return }
    let at = Clock.iso8601(wallNanoseconds: Clock.wallNanoseconds())
    attempts.deliverWaiting(verdictDeadline: Clock.monotonic() + config.socket.verdictTimeout) {
      id, keypad, digits in
      // Room for the longest line (every character of a name escaped as \uXXXX), so
      // the buffer never reallocates and leaves a copy of the digits behind.
      let room = 128 + 6 * (id.utf8.count + keypad.utf8.count + at.utf8.count)
      var line = [UInt8](repeating: 0, count: room)
      line.withUnsafeMutableBytes { SecretDigits.lockPages?($0.baseAddress!, $0.count) }
      line.removeAll(keepingCapacity: true)
      DaemonMessage.appendCode(id: id, keypad: keypad, digits: digits, at: at, to: &line)
      let clients = server.broadcastSecret(&line, id: id)
      log.debug("attempt \(id): sent to \(clients) client(s)")
      return clients > 0
    }
  }

  /// The controller's verdict for attempt `id`.
  func verdict(id: String, granted: Bool, message: String?, from client: SocketClient) {
    let now = now()
    switch attempts.decide(id: id) {
    case .accepted(let keypad):
      let result = granted ? "granted" : "denied"
      log.info("attempt \(id) on keypad \(keypad): \(result) by client \(client.serial)")
      server?.broadcast(DaemonMessage.verdict(id: id, result: result))
      server?.dropUnreadSecrets(of: id)
      feed(.verdict(granted ? .granted : .denied), keypad: keypad, now: now)
      activeKeypad = keypad
      if granted {
        presenter.showResult(.granted(message: message), now: now)
      } else if case .locked = machines[keypad]?.phase {
        presenter.keyPressed()  // the lockout countdown says it all
      } else {
        presenter.showResult(
          .denied(message: message, attemptsLeft: machines[keypad]?.attemptsLeft), now: now)
      }
      saveLockouts()
      Systemd.notify("STATUS=Waiting for keys")
    case .alreadyDecided:
      server?.send(DaemonMessage.error("attempt \(id) was already decided"), to: client)
    case .timedOut:
      server?.send(
        DaemonMessage.error(
          "attempt \(id) timed out: no verdict within \(config.socket.verdictTimeout.secondsText) s"
        ),
        to: client)
    case .unknown, .notDelivered:
      server?.send(DaemonMessage.error("unknown attempt id"), to: client)
    }
  }

  /// The deadline timer fired: timeouts in the core, deliveries, the screen.
  func tick() {
    let now = now()
    for name in Array(machines.keys) {
      if let deadline = machines[name]?.nextDeadline, deadline <= now {
        feed(.tick, keypad: name, now: now)
      }
    }
    for expired in attempts.expire(now: Clock.monotonic()) {
      activeKeypad = expired.keypad
      if expired.delivered {
        log.warning(
          "attempt \(expired.id): no verdict within \(config.socket.verdictTimeout.seconds) s")
        server?.broadcast(DaemonMessage.verdict(id: expired.id, result: "timeout"))
        server?.dropUnreadSecrets(of: expired.id)
        feed(.verdict(.noResponse), keypad: expired.keypad, now: now)
        presenter.showResult(.noResponse, now: now)
      } else {
        log.warning("attempt \(expired.id): no controller took it, code wiped")
        feed(.verdict(.undelivered), keypad: expired.keypad, now: now)
        presenter.showResult(.unavailable, now: now)
      }
      Systemd.notify("STATUS=Waiting for keys")
    }
    _ = presenter.expire(now: now)
    if let retry = lockoutRetry, retry <= Clock.monotonic() { saveLockouts() }
  }

  /// How long a failed lockout save waits before it is tried again.
  static let lockoutRetryInterval: Duration = .seconds(5)

  // MARK: Lockout state

  /// Reads the lockout state. A state directory that cannot be written fails the start
  /// (69): lockouts would silently stop surviving restarts. `--state-dir none` keeps
  /// them in memory only, on purpose.
  func loadLockouts() throws(StartError) {
    if options.stateDirectory == "none" {
      statePersistent = false
      log.info("--state-dir none: lockouts are kept in memory only and end with the process")
      return
    }
    do {
      try FileSystem.makeDirectories(options.stateDirectory, mode: 0o700)
      try FileSystem.checkWritable(options.stateDirectory)
    } catch {
      throw .unavailable(
        "state directory: \(error); lockouts could not survive a restart "
          + "(--state-dir none runs without saving them)")
    }
    guard FileSystem.exists(lockout.path) else { return }
    let text: String
    do { text = String(decoding: try FileSystem.read(lockout.path), as: UTF8.self) } catch {
      log.error("\(error); every keypad starts locked for \(config.lockout.lockout.seconds) s")
      savedLockouts["*"] = LockoutState(level: 1, lockedUntil: now() + config.lockout.lockout)
      return
    }
    let parsed = LockoutStore.parse(
      text, nowMono: now(), nowWallMs: Clock.wallNanoseconds() / 1_000_000,
      conservative: config.lockout.lockout)
    for problem in parsed.problems {
      log.error(
        "\(lockout.path): \(problem); treated as locked for \(config.lockout.lockout.seconds) s")
    }
    savedLockouts = parsed.states
    guessedLockouts = parsed.guessed
  }

  func saveLockouts() {
    for (name, machine) in machines {
      savedLockouts[name] = machine.lockoutState
      guessedLockouts.remove(name)
    }
    // A conservative lock for an unreadable file ("*") or a corrupt line ends with its
    // lock: a garbled name is not kept in the file as a keypad.
    for name in guessedLockouts.union(["*"]) {
      if let state = savedLockouts[name], state.lockedUntil.map({ $0 <= now() }) ?? true {
        savedLockouts[name] = nil
        guessedLockouts.remove(name)
      }
    }
    guard statePersistent else { return }
    let text = LockoutStore.render(
      savedLockouts, nowMono: now(), nowWallMs: Clock.wallNanoseconds() / 1_000_000)
    let write = { () throws(SystemError) in
      try FileSystem.writeAtomically(self.lockout.path, Array(text.utf8))
    }
    // With the socket's reserve descriptor: clients holding every other one must not
    // stop a lockout from being kept.
    do {
      if let server { try server.withReserve(write) } else { try write() }
    } catch {
      // Logged once per streak of failures, retried until it works; `status` says so.
      if lockoutSaveError == nil {
        log.error(
          "cannot save lockout state: \(error); retrying every \(Int(Self.lockoutRetryInterval.seconds)) s"
        )
      }
      lockoutSaveError = "\(error)"
      lockoutRetry = Clock.monotonic() + Self.lockoutRetryInterval
      return
    }
    if lockoutSaveError != nil { log.info("lockout state saved again") }
    lockoutSaveError = nil
    lockoutRetry = nil
  }
}
