import PinpadCore
import PinpadProgram
import PinpadScreen
import PinpadSystem

/// Opening the daemon's resources in order (the lockout state is read before, in `init`;
/// `tearDown` gives them back in reverse): signals and timers, the socket, the display,
/// the inputs, the watchdog.
extension Daemon {
  func setUp(inputs given: [InputSource]?) throws(StartError) {
    try doors.open(config.doors, loop: loop)  // relays driven locked before anything else
    doors.broadcast = { [unowned self] message in self.server?.broadcast(message) }
    feedback.onState = { [unowned self] keypad, state in self.doors.feedback(keypad: keypad, state)
    }
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
    // The inputs that can have feedback devices, found once (not cast at every key).
    let feedbackInputs = inputs.compactMap { $0 as? FeedbackDevices }
    feedback.devices = { feedbackInputs.flatMap { $0.feedbackDevices } }
    do { watchdogTimer = try Watchdog.start(loop: loop) } catch {
      throw .unavailable("cannot start the watchdog timer: \(error)")
    }
  }

  /// The socket systemd passed, or one bound at `--socket` / `[Socket] Path=`.
  func openSocket() throws(StartError) {
    let (server, file) = try ControllerSocket.serve(
      path: options.socketPath ?? config.socket.path, config.socket, loop: loop, log: log)
    socketFile = file
    server.onRequest = { [unowned self] client, request in self.request(request, from: client) }
    server.onClientReady = { [unowned self] _ in self.send(.clientReady) }
    self.server = server
  }
}
