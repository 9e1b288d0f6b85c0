import PinpadCore
import PinpadProgram
import PinpadScreen
import PinpadSystem

/// Opening the daemon's resources in order (the lockout state is read before, in `init`;
/// `tearDown` gives them back in reverse): signals and timers, the socket, the display,
/// the inputs, the watchdog.
extension Daemon {
  func setUp(inputs given: [InputSource]?) throws(StartError) {
    try openDoors()  // relays driven locked before anything else
    do {
      try loop.watch(signals.fd, .readable) { [unowned self] _ in self.handleSignals() }
      try loop.watch(deadlineTimer.fd, .readable) { [unowned self] _ in
        self.deadlineTimer.acknowledge()
        self.tick()
      }
    } catch {
      throw .unavailable("cannot watch signals: \(error)")
    }
    try openSocket()
    display = try DisplaySetup.open(options.display, config.display, loop: loop, log: log)
    // No display, no screen model: nothing would look at it.
    session.drawsScreen = !(display is NoDisplay)
    // No service manager, no STATUS= text built per code.
    session.reportsStatus = Systemd.notifies
    DisplaySetup.shareTerminal(
      display, terminalInput: options.inputs.contains(.terminal), config.entry, log: log)
    let deliver = { [unowned self] (keypad: String, event: SourceEvent) in
      self.input(event, keypad: keypad)
    }
    if let given {
      for input in given {
        do { try input.start(loop: loop, deliver: deliver) } catch {
          throw .unavailable("\(error)")
        }
        inputs.append(input)
      }
    } else {
      inputs = try InputSetup.open(
        options.inputs, config, defaultKeypad: session.defaultKeypad,
        pixelSize: display.pixelSize, loop: loop, log: log, deliver: deliver)
    }
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

  /// The socket systemd passed, or one bound at `--socket` / `[Socket] Path=`.
  func openSocket() throws(StartError) {
    var missingGroups = MissingGroups()
    let policy = try ControllerSocket.accessPolicy(config.socket, log: log, &missingGroups)
    let fd: OwnedDescriptor
    if let passed = Systemd.listenDescriptors().first(where: UnixSocket.isListeningStream) {
      fd = OwnedDescriptor(taking: passed.rawValue)
      log.info("socket: using the socket passed by systemd")
    } else {
      let path = options.socketPath ?? config.socket.path
      var identity: FileIdentity?
      fd = try ControllerSocket.bind(
        path: path, config.socket, log: log, &missingGroups, identity: &identity)
      ownedSocketPath = path
      ownedSocketIdentity = identity
      log.info("socket: listening on \(path)")
    }
    for line in missingGroups.warnings { log.warning(line) }
    do {
      let server = try SocketServer(
        listener: fd, loop: loop, policy: policy, version: pinpaddVersion, log: log)
      server.onRequest = { [unowned self] client, request in self.request(request, from: client) }
      server.onClientReady = { [unowned self] _ in self.send(.clientReady) }
      self.server = server
    } catch {
      throw .unavailable("socket: \(error)")
    }
  }
}
