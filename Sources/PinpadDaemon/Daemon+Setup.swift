import PinpadCore
import PinpadScreen
import PinpadSystem

/// Setting up, in the order `setUp` takes them: signals and the timers, the socket
/// (Daemon+Socket.swift), the display, the inputs; and reading the lockout state first.
extension Daemon {
  func setUp() throws(StartError) {
    do {
      try loop.watch(signals.fd, .readable) { [unowned self] _ in self.handleSignals() }
      try loop.watch(deadlineTimer.fd, .readable) { [unowned self] _ in
        self.deadlineTimer.acknowledge()
        self.send(.tick)
      }
    } catch {
      throw .unavailable("cannot watch signals: \(error)")
    }
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

  /// Reads the lockout state. A state directory that cannot be written fails the start
  /// (69): lockouts would silently stop surviving restarts. `--state-dir none` keeps
  /// them in memory only, on purpose.
  static func loadLockouts(
    _ lockout: LockoutStore, options: Options, config: Configuration, log: Logger
  ) throws(StartError) -> SavedLockouts {
    if options.stateDirectory == "none" {
      log.info("--state-dir none: lockouts are kept in memory only and end with the process")
      return SavedLockouts()
    }
    do {
      try FileSystem.makeDirectories(options.stateDirectory, mode: 0o700)
      try FileSystem.checkWritable(options.stateDirectory)
    } catch {
      throw .unavailable(
        "state directory: \(error); lockouts could not survive a restart "
          + "(--state-dir none runs without saving them)")
    }
    guard FileSystem.exists(lockout.path) else { return SavedLockouts() }
    let now = Clock.monotonic()
    let text: String
    do { text = String(decoding: try FileSystem.read(lockout.path), as: UTF8.self) } catch {
      log.error("\(error); every keypad starts locked for \(config.lockout.lockout.seconds) s")
      return SavedLockouts(
        states: ["*": LockoutState(level: 1, lockedUntil: now + config.lockout.lockout)],
        fileDiffers: true)
    }
    let parsed = LockoutStore.parse(
      text, nowMono: now, nowWallMs: Clock.wallNanoseconds() / 1_000_000,
      conservative: config.lockout.lockout)
    for problem in parsed.problems {
      log.error(
        "\(lockout.path): \(problem); treated as locked for \(config.lockout.lockout.seconds) s")
    }
    return SavedLockouts(
      states: parsed.states, guessed: parsed.guessed, fileDiffers: !parsed.problems.isEmpty)
  }

  func openDisplay() throws(StartError) {
    let spec: DisplaySpec
    if let given = options.display {
      spec = given
    } else {
      let device = config.display.device.isEmpty ? nil : config.display.device
      switch config.display.output {
      case .auto: spec = .auto
      case .fb: spec = .framebuffer(device: device)
      case .console: spec = .console(tty: device)
      case .none: spec = .none
      }
    }
    switch spec {
    case .none:
      display = NoDisplay()
    case .console(let tty):
      do { display = try ConsoleDisplay(tty: tty) } catch {
        throw .unavailable("display: \(error)")
      }
      shareTerminal()
    case .framebuffer(let device):
      do {
        display = try FramebufferDisplay(
          device: device ?? "/dev/fb0", font: try configuredFont())
      } catch {
        throw .unavailable("display: \(error)")
      }
    case .snapshot(let directory):
      do {
        display = try SnapshotDisplay(
          directory: directory, width: config.display.snapshotWidth,
          height: config.display.snapshotHeight, font: try configuredFont())
      } catch {
        throw .unavailable("display: \(error)")
      }
    case .auto:
      let device = config.display.device.isEmpty ? "/dev/fb0" : config.display.device
      if FileSystem.exists(device) {
        do {
          display = try FramebufferDisplay(device: device, font: try configuredFont())
          log.info("display: framebuffer \(device)")
          return
        } catch {
          log.info("display: framebuffer \(device) not usable (\(error)), trying the console")
        }
      }
      if FileDescriptor.standardOutput.isTerminal {
        do { display = try ConsoleDisplay(tty: nil) } catch {
          throw .unavailable("display: \(error)")
        }
        log.info("display: console on the current terminal")
        shareTerminal()
      } else {
        display = NoDisplay()
        log.info("display: none (no framebuffer, and standard output is not a terminal)")
      }
    }
  }

  /// A console display on the terminal the keys are typed on shows the key hints; one
  /// on the terminal stderr goes to takes the log lines on its status line, so that no
  /// log line is ever written over the entry.
  private func shareTerminal() {
    guard let console = display as? ConsoleDisplay else { return }
    console.hint = terminalHint
    if console.drawsOn(sameTerminalAs: .standardError) {
      log.divert = { [unowned console] level, line in
        let prefix = level == .error ? "error: " : level == .warning ? "warning: " : ""
        console.showStatus(prefix + line)
      }
    }
  }

  /// The key hints for the console, when keys come from the terminal it draws on.
  var terminalHint: String? {
    guard options.inputs.contains(.terminal), let console = display as? ConsoleDisplay,
      console.drawsOn(sameTerminalAs: .standardInput)
    else { return nil }
    return TerminalHint.line(config.entry)
  }

  /// `[Display] Font=`, nil when unset (each display then picks its default).
  private func configuredFont() throws -> BitmapFont? {
    config.display.font.isEmpty ? nil : try DisplayFont.load(path: config.display.font)
  }

  var defaultKeypad: String { session.defaultKeypad }

  func openInputs() throws(StartError) {
    let specs = options.inputs.isEmpty ? [InputSpec.auto] : options.inputs
    // Touchscreens and pointers press the drawn keys: only with a pad and pixels to hit.
    let pointerScreen = config.display.onScreenKeypad ? display.pixelSize : nil
    if config.display.onScreenKeypad, pointerScreen == nil {
      log.info("on-screen keypad: this display has no pixels to touch; pointers not used")
    }
    for spec in specs {
      let input: InputSource
      do {
        switch spec {
        case .terminal: input = TerminalInput(keypad: defaultKeypad)
        case .replay(let path, let fast):
          input = try ReplayInput(path: path, fast: fast, keypad: defaultKeypad)
        case .auto:
          input = KeypadDevices(
            mode: .discover, keypads: config.keypads, fallbackKeypad: defaultKeypad, log: log,
            pointerScreen: pointerScreen)
        case .device(let path):
          input = KeypadDevices(
            mode: .path(path), keypads: config.keypads, fallbackKeypad: defaultKeypad, log: log)
        }
        try input.start(loop: loop) { [unowned self] keypad, event in
          self.input(event, keypad: keypad)
        }
      } catch {
        throw .unavailable("\(error)")
      }
      inputs.append(input)
    }
  }
}
