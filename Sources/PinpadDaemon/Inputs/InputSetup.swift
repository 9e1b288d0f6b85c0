import PinpadCore
import PinpadProgram
import PinpadSystem

/// Starting the inputs the command line names.
enum InputSetup {
  /// Starts the inputs `--input` asks for (auto when none); on failure the ones already
  /// started are closed again.
  static func open(
    _ given: [InputSpec], _ config: Configuration, defaultKeypad: String,
    pixelSize: (width: Int, height: Int)?, loop: EventLoop, log: Logger,
    deliver: @escaping (_ keypad: String, SourceEvent) -> Void
  ) throws(StartError) -> [InputSource] {
    var inputs: [InputSource] = []
    let specs = given.isEmpty ? [InputSpec.auto] : given
    // Touchscreens and pointers press the drawn keys: only with a pad and pixels to hit.
    let pointerScreen = config.display.onScreenKeypad ? pixelSize : nil
    if config.display.onScreenKeypad, pointerScreen == nil {
      log.info("on-screen keypad: this display has no pixels to touch; pointers not used")
    }
    for spec in specs {
      let input: InputSource
      do {
        switch spec {
        case .terminal: input = TerminalInput(keypad: defaultKeypad)
        case .replay(let path, let fast):
          input = try ReplayInput(
            path: path, fast: fast, keypad: defaultKeypad, keypads: config.keypads)
        case .auto:
          input = KeypadDevices(
            mode: .discover, keypads: config.keypads, fallbackKeypad: defaultKeypad, log: log,
            pointerScreen: pointerScreen)
        case .device(let path):
          input = KeypadDevices(
            mode: .path(path), keypads: config.keypads, fallbackKeypad: defaultKeypad, log: log)
        }
        try input.start(loop: loop, deliver: deliver)
      } catch {
        for input in inputs { input.close() }
        throw .unavailable("\(error)")
      }
      inputs.append(input)
    }
    return inputs
  }
}
