import PinpadCore
import PinpadSystem

/// Choosing and opening the display and the inputs.
extension Daemon {
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
    case .auto:
      if FileDescriptor.standardOutput.isTerminal {
        display = try! ConsoleDisplay(tty: nil)
        log.info("display: console on the current terminal")
      } else {
        display = NoDisplay()
        log.info("display: none (no framebuffer, and standard output is not a terminal)")
      }
    case .framebuffer, .snapshot:
      throw .unavailable("display: \(spec) is not available in this build")
    }
  }

  /// The keypad a non-device input (terminal, recording) feeds: "default", or the
  /// first `[Keypad]` section when there are any.
  var defaultKeypad: String { config.keypads.first?.name ?? "default" }

  func openInputs() throws(StartError) {
    let specs = options.inputs.isEmpty ? [InputSpec.auto] : options.inputs
    for spec in specs {
      let input: InputSource
      do {
        switch spec {
        case .terminal: input = TerminalInput(keypad: defaultKeypad)
        case .replay(let path, let fast):
          input = try ReplayInput(path: path, fast: fast, keypad: defaultKeypad)
        case .auto, .device:
          throw InputError("keypad discovery is not available in this build; use --input terminal")
        }
        try input.start(loop: loop) { [unowned self] keypad, event in
          self.handle(event, keypad: keypad)
        }
      } catch {
        throw .unavailable("\(error)")
      }
      inputs.append(input)
    }
  }
}
