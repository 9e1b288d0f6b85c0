/// Every decision of the daemon, as one value: the entry of each keypad, the codes
/// handed to the controller and their timeouts (docs/protocol.md, "Socket: delivery"),
/// lockouts and when to save them, what the screen shows and for which keypad, `status`
/// answers and reloads.
///
/// Events in, effects out; nothing is read or written. `now` is the monotonic clock.
/// The socket's timeouts and retries run on it; the entry machines and the screen run
/// on the entry time, which an input's stamps may push ahead (a fast replay stamps keys
/// with their recorded offsets) and which then keeps running from there. `nextWakeup`
/// is on the monotonic clock.
///
/// Its parts are in files of their own: `Session+Cards.swift` (card readers),
/// `Session+Attempts.swift` (codes and verdicts), `Session+Lockouts.swift` (the lockout
/// file). What they share with this file (the clock, `feed`, `log`, the setters) is
/// internal for them: nothing else in the module touches a Session's parts.
public struct Session {
  /// Fixed for the life of the process.
  public struct Settings: Sendable {
    /// The daemon's version, for `status` and the ready line.
    public var version: String
    /// False with `--state-dir none`: lockouts are never written.
    public var persistent: Bool
    /// The keypad name of pointers no `[Keypad]` claimed: they type into the screen's keypad.
    public var screenKeypad: String
    /// The least severe level logged: `Effect.log` below it is neither built nor sent
    /// (the key events' debug lines cost nothing at `info`).
    public var logLevel: LogLevel
    public init(
      version: String, persistent: Bool = true, screenKeypad: String = "",
      logLevel: LogLevel = .debug
    ) {
      self.version = version
      self.persistent = persistent
      self.screenKeypad = screenKeypad
      self.logLevel = logLevel
    }
  }

  private let settings: Settings
  public private(set) var config: Configuration
  /// Every keypad that has had an event: its entry machine, card slot and section.
  public internal(set) var keypads = KeypadTable()
  public internal(set) var attempts: AttemptBook
  public internal(set) var presenter = ScreenPresenter()
  /// The keypad whose entry the screen shows: the last one used.
  public internal(set) var activeKeypad: String? = nil
  private var padPress = PadPress()
  private var lastModel: ScreenModel? = nil
  /// False when no display draws (`--display none`): no `ScreenModel` is built and no
  /// `Effect.show` asked for.
  public var drawsScreen = true
  /// False when no service manager takes STATUS= lines (no $NOTIFY_SOCKET): the
  /// per-code status text is not built. READY=1 is asked for either way.
  public var reportsStatus = true
  /// `feed`'s buffer for an entry machine's actions, kept between keys.
  private var spareActions: [EntryAction] = []
  /// The lockout states and when the file is written.
  public internal(set) var lockouts: LockoutSaving
  /// The entry time, and how far it runs ahead of the monotonic clock.
  var clock = EntryClock()
  /// `[Socket]`'s DeliveryTimeoutSec and VerdictTimeoutSec in nanoseconds, added to the
  /// clock for every code (taken once: [Socket] is not reloaded).
  let deliveryTimeout: Int64
  let verdictTimeout: Int64
  private var random: any RandomNumberGenerator

  public init(
    settings: Settings, config: Configuration, saved: SavedLockouts = SavedLockouts(),
    random: any RandomNumberGenerator = SystemRandomNumberGenerator(),
    idRandom: any RandomNumberGenerator = SystemRandomNumberGenerator()
  ) {
    self.settings = settings
    self.config = config
    deliveryTimeout = config.socket.deliveryTimeout.nanoseconds
    verdictTimeout = config.socket.verdictTimeout.nanoseconds
    lockouts = LockoutSaving(saved, persistent: settings.persistent)
    self.random = random
    attempts = AttemptBook(random: idRandom)
  }

  /// Why the last lockout save failed, nil when the file is up to date.
  public var lockoutSaveError: String? { lockouts.error }

  /// The keypad a non-device input (terminal, recording) feeds: "default", or the
  /// first `[Keypad]` section when there are any.
  public var defaultKeypad: String { config.keypads.first?.name ?? "default" }

  private var activeMachine: EntryMachine? { activeKeypad.flatMap { machine($0) } }

  public func machine(_ name: String) -> EntryMachine? { keypads[name]?.machine }
  public func card(_ name: String) -> CardSlot? { keypads[name]?.card }

  /// Where keypad `name` is in `keypads`, made (with a fresh entry machine, and the
  /// state saved for it) on its first event: an index is held only across calls that
  /// make none (everything below a keypad's own event).
  mutating func index(_ name: String) -> Int {
    if let index = keypads.find(name) { return index }
    return keypads.insert(
      Keypad(
        name: name,
        machine: EntryMachine(
          rules: config.entry, lockout: config.lockout, state: lockouts.state(for: name)),
        config: config.keypads.first { $0.name == name }))
  }

  /// When the shell must send `.tick` (monotonic clock), nil when nothing waits on time.
  public var nextWakeup: Instant? {
    // Asked after every batch of events: the earliest deadline without an array.
    var entry: Instant? = nil
    func consider(_ d: Instant?, _ earliest: inout Instant?) {
      if let d, earliest.map({ d < $0 }) ?? true { earliest = d }
    }
    // By index, and the active machine's phase only: no keypad is copied to be asked.
    for k in keypads.indices {
      consider(keypads[k].machine.nextDeadline, &entry)
      consider(keypads[k].card?.nextDeadline, &entry)
    }
    // Mostly the keypad of the last event: a name compare, not a hash.
    let active = activeKeypad.flatMap { keypads.index(of: $0) }
    consider(
      presenter.nextDeadline(phase: active.map { keypads[$0].machine.phase }, now: clock.now),
      &entry)
    var wakeup = entry.map { clock.monotonic($0) }
    consider(attempts.nextDeadline, &wakeup)
    consider(lockouts.retry, &wakeup)
    return wakeup
  }

  /// `nextWakeup`, asked in place. A shell that keeps the session in a class's property
  /// calls this: reading `nextWakeup` there copies the whole session out first (every
  /// keypad's state, once a batch).
  public mutating func nextWakeupInPlace() -> Instant? { nextWakeup }

  /// What `event` asks for, appended to `out` (the shell's buffer, reused from event to
  /// event).
  public mutating func handle(_ event: SessionEvent, now: Instant, into out: inout [Effect]) {
    switch event {
    case .start:
      show(now: now, force: true, &out)
      out.append(.notify("READY=1\nSTATUS=Waiting for keys"))
      log(.info, "pinpadd \(settings.version) ready", &out)
    case .key(let keypad, let code, let value, let stamp):
      key(keypad, code, value: value, stamp: stamp, now: now, &out)
    case .cardKey(let keypad, let code, let value, let stamp):
      cardKey(keypad, code, value: value, stamp: stamp, now: now, &out)
    case .cardDropped(let keypad):
      if let k = keypads.index(of: keypad) { keypads[k].dropCardRead() }
      log(.warning, "keypad \(keypad): card reader lost events, card read dropped", &out)
    case .dropped(let keypad, let stamp):
      let at = clock.advance(to: stamp, monotonic: now)
      log(.warning, "keypad \(keypad): events lost in the kernel (SYN_DROPPED), entry wiped", &out)
      feed(.eventsDropped, keypad: keypad, at: at, now: now, &out)
    case .deviceAdded(let keypad, let path, let role):
      log(
        .info, "keypad \(keypad): \(path) added\(role == .cardReader ? " (card reader)" : "")", &out
      )
      out.append(.broadcast(.keypad(name: keypad, added: true, device: path, role: role)))
    case .deviceRemoved(let keypad, let path, let role):
      log(
        .info, "keypad \(keypad): \(path) removed\(role == .cardReader ? " (card reader)" : "")",
        &out)
      out.append(.broadcast(.keypad(name: keypad, added: false, device: path, role: role)))
      if role == .cardReader { cardReaderRemoved(keypad, now: now, &out) }
    case .padPress(let keypad, let action, let padKey, let stamp):
      padPress(keypad, action, key: padKey, stamp: stamp, now: now, &out)
    case .pointerLost:
      padPress.cancel()
      presenter.pressedPadKey = nil
    case .clientReady:
      offerWaitingCodes(&out)
    case .codeSent(let id, let clients, let connected):
      codeSent(id: id, clients: clients, connected: connected, now: now, &out)
    case .verdict(let id, let granted, let message, let duress, let reason, let client):
      verdict(
        id: id, granted: granted, message: message, duress: duress, reason: reason,
        client: client, now: now, &out)
    case .status(let client, let shell):
      out.append(.reply(client: client, .status(statusReport(shell, now: now))))
    case .reload(let loaded):
      reload(loaded, now: now, &out)
    case .lockoutsSaved(let failure):
      lockoutsSaved(failure: failure, now: now, &out)
    case .screenLost:
      lastModel = nil
    case .tick:
      tick(now: now, &out)
    case .endOfBatch:
      show(now: now, force: false, &out)
    case .quit(let reason):
      log(.info, reason, &out)
      out.append(.stop)
    }
  }

  /// Wipes every entry and every held code (shutdown).
  public mutating func end() {
    for k in keypads.indices { keypads[k].wipeCard() }
    keypads.removeAll()
    attempts.wipeAll()
  }

  /// Appends a log line at `level` when that level is logged (`Settings.logLevel`):
  /// the line is built only then.
  func log(_ level: LogLevel, _ line: @autoclosure () -> String, _ out: inout [Effect]) {
    if level >= settings.logLevel { out.append(.log(level, line())) }
  }

  /// A STATUS= line for the service manager, built only when one takes it.
  func status(_ text: @autoclosure () -> String, _ out: inout [Effect]) {
    if reportsStatus { out.append(.notify("STATUS=" + text())) }
  }

  // MARK: Keys

  private mutating func key(
    _ keypad: String, _ code: KeyCode, value: Int32, stamp: Instant, now: Instant,
    _ out: inout [Effect]
  ) {
    let at = clock.advance(to: stamp, monotonic: now)
    let k = index(keypad)
    if value == 1 {
      // Plymouth's habit: key events only at debug level, and never which digit.
      log(.debug, "keypad \(keypad): \(code.digit == nil ? code.name : "digit key") pressed", &out)
      if activeKeypad != keypad || presenter.hasResult {
        activeKeypad = keypad
        presenter.keyPressed()
      }
      if code.digit != nil, needsCard(k, at: at, now: now, &out) {
        presenter.showFeedback(.presentCard, now: at)
        return
      }
    }
    feed(.key(code, value: value), keypad: k, at: at, now: now, &out)
  }

  /// A touch or click on the on-screen keypad: the key under it shows pressed, and a
  /// release on the key it went down on types that key into the keypad's entry (the
  /// screen's keypad unless a `[Keypad]` section claimed the pointer).
  private mutating func padPress(
    _ keypad: String, _ action: PointerAction, key padKey: PadKey?, stamp: Instant,
    now: Instant, _ out: inout [Effect]
  ) {
    let at = clock.advance(to: stamp, monotonic: now)
    guard config.display.onScreenKeypad else { return }
    let activated = padPress.handle(action, key: padKey)
    presenter.pressedPadKey = padPress.shown
    guard let activated, let code = activated.keyCode(rules: config.entry) else { return }
    let target = keypad == settings.screenKeypad ? (activeKeypad ?? defaultKeypad) : keypad
    log(.debug, "on-screen keypad: \(activated.isDigit ? "digit key" : code.name) pressed", &out)
    key(target, code, value: 1, stamp: at, now: now, &out)
    key(target, code, value: 0, stamp: at, now: now, &out)
  }

  /// `input` into the entry machine of keypad `name`, made on its first event.
  mutating func feed(
    _ input: EntryInput, keypad name: String, at: Instant, now: Instant, _ out: inout [Effect]
  ) {
    feed(input, keypad: index(name), at: at, now: now, &out)
  }

  /// `input` into the entry machine of `keypads[k]`.
  mutating func feed(
    _ input: EntryInput, keypad k: Int, at: Instant, now: Instant, _ out: inout [Effect]
  ) {
    // The spare buffer, given back emptied: a key allocates no array (a nested feed,
    // rare, finds none and makes its own).
    var actions = spareActions
    spareActions = []
    keypads[k].machine.handle(input, now: at, into: &actions)
    perform(actions, keypad: k, at: at, now: now, &out)
    actions.empty()
    spareActions = actions
  }

  /// What an entry machine asked for.
  private mutating func perform(
    _ actions: [EntryAction], keypad k: Int, at: Instant, now: Instant, _ out: inout [Effect]
  ) {
    let keypad = keypads[k].name
    for action in actions {
      switch action {
      case .entry(let event, let length):
        out.append(.broadcast(.entry(keypad: keypad, event: event, length: length)))
        if event == .started, config.display.keypadLayout == .scrambled {
          presenter.padCells = ScrambledLayout.make(using: &random)
        }
        if event == .timeout { log(.info, "keypad \(keypad): entry timed out", &out) }
      case .submit(let digits):
        // The card read for this PIN (card+pin) or alone (an empty code).
        let card = keypads[k].takeHeldCard()
        guard !digits.isEmpty || card != nil else {
          // Nothing to check (cannot happen: a card is held before it is submitted);
          // the keypad must not wait for a verdict that cannot come.
          feed(.verdict(.undelivered), keypad: k, at: at, now: now, &out)
          continue
        }
        let id = attempts.add(
          keypad: keypad, digits: digits, card: card,
          deadline: now.adding(nanoseconds: deliveryTimeout))
        let what = card == nil ? "code" : digits.isEmpty ? "card" : "card and code"
        log(.info, "keypad \(keypad): \(what) submitted as attempt \(id)", &out)
        status("Checking attempt \(id)", &out)
        offerWaitingCodes(&out)
      case .feedback(let feedback):
        presenter.showFeedback(feedback, now: at)
      case .lockout(let seconds):
        log(.warning, "keypad \(keypad): locked out for \(seconds) s after repeated denials", &out)
        out.append(.broadcast(.lockout(keypad: keypad, seconds: seconds)))
        saveLockouts(now: now, &out)
      case .screenChanged:
        break  // the screen is drawn at the end of each batch when its model changed
      }
    }
  }

  /// Timeouts of the entries, of the attempts, of the screen; a lockout save retried.
  private mutating func tick(now: Instant, _ out: inout [Effect]) {
    let at = clock.time(at: now)
    for k in keypads.indices {
      if let deadline = keypads[k].machine.nextDeadline, deadline <= at {
        feed(.tick, keypad: k, at: at, now: now, &out)
      }
    }
    for k in keypads.indices where keypads[k].expireCard(now: at) {
      log(
        .info,
        "keypad \(keypads[k].name): card wiped, no PIN within \(keypads[k].pinAfterCard.secondsText) s",
        &out)
      feed(.timedOut, keypad: k, at: at, now: now, &out)
    }
    for expired in attempts.expire(now: now) {
      activeKeypad = expired.keypad
      if expired.delivered {
        log(
          .warning,
          "attempt \(expired.id): no verdict within \(Double(verdictTimeout) / 1e9) s", &out
        )
        out.append(.broadcast(.verdict(id: expired.id, result: .timeout)))
        out.append(.dropUnreadCode(id: expired.id))
        feed(.verdict(.noResponse), keypad: expired.keypad, at: at, now: now, &out)
        presenter.showResult(.noResponse, now: at)
      } else {
        log(.warning, "attempt \(expired.id): no controller took it, code wiped", &out)
        feed(.verdict(.undelivered), keypad: expired.keypad, at: at, now: now, &out)
        presenter.showResult(.unavailable, now: at)
      }
      status("Waiting for keys", &out)
    }
    _ = presenter.expire(now: at)
    if lockouts.retryDue(now: now) { saveLockouts(now: now, &out) }
  }

  // MARK: Reload, status, screen

  /// SIGHUP with a good file: entry rules, lockout rules, prompt, layout and keypads
  /// change now; the socket and the display's device at the next start.
  private mutating func reload(_ loaded: Configuration, now: Instant, _ out: inout [Effect]) {
    if loaded.socket != config.socket {
      log(.warning, "reload: [Socket] changes take effect at the next start", &out)
    }
    if loaded.doors != config.doors {
      // A relay is never released and requested again on a reload.
      log(.warning, "reload: [Door] changes take effect at the next start", &out)
    }
    var displayKeys = loaded.display
    displayKeys.prompt = config.display.prompt
    displayKeys.keypadLayout = config.display.keypadLayout
    if displayKeys != config.display {
      log(
        .warning,
        "reload: [Display] Output, Device, Font, OnScreenKeypad and SnapshotSize take effect at the next start",
        &out)
    }
    config.entry = loaded.entry
    config.lockout = loaded.lockout
    config.display.prompt = loaded.display.prompt
    config.display.keypadLayout = loaded.display.keypadLayout
    config.keypads = loaded.keypads
    for k in keypads.indices {
      let name = keypads[k].name
      keypads[k].config = config.keypads.first { $0.name == name }
      if keypads[k].cardMode == .off { keypads[k].wipeCard(dropSlot: true) }
    }
    out.append(.reconfigure(config))
    let at = clock.time(at: now)
    for k in keypads.indices {
      let actions = keypads[k].machine.reconfigure(
        rules: config.entry, lockout: config.lockout, now: at)
      perform(actions, keypad: k, at: at, now: now, &out)
    }
    log(.info, "configuration reloaded", &out)
  }

  /// The `status` answer: names, phases, lengths and counts; never a digit.
  private mutating func statusReport(_ shell: ShellStatus, now: Instant) -> StatusReport {
    let at = clock.time(at: now)
    let keypads = self.keypads.map { keypad in
      let machine = keypad.machine
      var lockedSeconds = 0
      var failures: Int? = machine.lockoutState.failures
      if case .locked(let until) = machine.phase {
        lockedSeconds = Int((until - at).nanoseconds.saturatingAdd(999_999_999) / 1_000_000_000)
        failures = nil  // the count starts again with a lockout: while locked, a 0 would mislead
      }
      return StatusReport.Keypad(
        name: keypad.name, phase: machine.phase, length: machine.length, failures: failures,
        lockedSeconds: lockedSeconds)
    }
    return StatusReport(
      version: settings.version, keypads: keypads, inputs: shell.inputs, clients: shell.clients,
      queuedBytes: shell.queuedBytes, lockoutsSaved: settings.persistent && lockouts.error == nil,
      pending: attempts.attempts.count, doors: shell.doors)
  }

  /// The frame for the active keypad, when it differs from the last one drawn.
  private mutating func show(now: Instant, force: Bool, _ out: inout [Effect]) {
    guard drawsScreen else { return }
    let awaitingPin = activeKeypad.map { card($0)?.held != nil } ?? false
    let model = presenter.model(
      machine: activeMachine, rules: config.entry, display: config.display,
      now: clock.time(at: now),
      awaitingPin: awaitingPin)
    guard force || model != lastModel else { return }
    lastModel = model
    out.append(.show(model))
  }
}
