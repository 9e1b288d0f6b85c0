import PinpadCore
import PinpadDRM
import PinpadProgram
import PinpadScreen
import PinpadSystem

/// Choosing and opening the display, and sharing a terminal with the log and the keys.
enum DisplaySetup {
  /// The display `--display` or `[Display] Output=` asks for. `loop` carries a DRM
  /// display's flip events.
  static func open(
    _ given: DisplaySpec?, _ config: DisplayConfig, loop: EventLoop? = nil, log: Logger
  ) throws(StartError) -> Display {
    let display: Display
    let spec: DisplaySpec
    if let given {
      spec = given
    } else {
      let device = config.device.isEmpty ? nil : config.device
      switch config.output {
      case .auto: spec = .auto
      case .drm: spec = .drm(card: device)
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
    case .drm(let card):
      do {
        let drm =
          try card.map {
            try DRMDisplay(
              path: $0, config: config, loop: loop, font: try font(config), log: log,
              waitForConnector: true)
          }
          ?? DRMDisplay.first(
            config: config, loop: loop, font: try font(config), log: log, waitForConnector: true)
        log.info("display: \(describe(drm))")
        display = drm
      } catch {
        throw .unavailable("display: \(error)")
      }
    case .framebuffer(let device):
      do {
        display = try FramebufferDisplay(
          device: device ?? "/dev/fb0", font: try font(config), rotation: config.rotate ?? .none)
      } catch {
        throw .unavailable("display: \(error)")
      }
    case .snapshot(let directory):
      do {
        display = try SnapshotDisplay(
          directory: directory, width: config.snapshotWidth,
          height: config.snapshotHeight, font: try font(config),
          rotation: config.rotate ?? .none)
      } catch {
        throw .unavailable("display: \(error)")
      }
    case .auto:
      // DRM/KMS first, then fbdev, then the console (pinpadd.conf(5), [Display]). No
      // card at all (no /dev/dri) is not worth a log line. A card with connectors but
      // none connected is waited on: its fbdev emulation would show nothing either.
      let drmDevice = config.device.hasPrefix("/dev/dri/")
      if drmDevice || (config.device.isEmpty && !DRMCard.cardPaths().isEmpty) {
        do {
          let drm =
            try config.device.isEmpty
            ? DRMDisplay.first(
              config: config, loop: loop, font: try font(config), log: log,
              waitForConnector: true)
            : DRMDisplay(
              path: config.device, config: config, loop: loop, font: try font(config), log: log,
              waitForConnector: true)
          log.info("display: \(describe(drm))")
          return drm
        } catch {
          log.info("display: DRM/KMS not usable (\(error)), trying the framebuffer")
        }
      }
      let device = config.device.isEmpty || drmDevice ? "/dev/fb0" : config.device
      if FileSystem.exists(device) {
        do {
          let framebuffer = try FramebufferDisplay(
            device: device, font: try font(config), rotation: config.rotate ?? .none)
          log.info("display: framebuffer \(device)")
          return framebuffer
        } catch {
          log.info("display: framebuffer \(device) not usable (\(error)), trying the console")
        }
      }
      if FileDescriptor.standardOutput.isTerminal {
        do { display = try ConsoleDisplay(tty: nil) } catch {
          throw .unavailable("display: \(error)")
        }
        log.info("display: console on the current terminal")
      } else {
        display = NoDisplay()
        log.info("display: none (no framebuffer, and standard output is not a terminal)")
      }
    }
    return display
  }

  /// A console display on the terminal the keys are typed on shows the key hints; one
  /// on the terminal stderr goes to takes the log lines on its status line, so that no
  /// log line is ever written over the entry.
  static func shareTerminal(
    _ display: Display, terminalInput: Bool, _ entry: EntryConfig, log: Logger
  ) {
    guard let console = display as? ConsoleDisplay else { return }
    console.hint = hint(display, terminalInput: terminalInput, entry)
    if console.drawsOn(sameTerminalAs: .standardError) {
      log.divert = { [unowned console] level, line in
        let prefix = level == .error ? "error: " : level == .warning ? "warning: " : ""
        console.showStatus(prefix + line)
      }
    }
  }

  /// The key hints for the console, when keys come from the terminal it draws on.
  static func hint(_ display: Display, terminalInput: Bool, _ entry: EntryConfig) -> String? {
    guard terminalInput, let console = display as? ConsoleDisplay,
      console.drawsOn(sameTerminalAs: .standardInput)
    else { return nil }
    return TerminalHint.line(entry)
  }

  /// "DRM /dev/dri/card0 Virtual-1 1280x800, rotated 90", for the log; "DRM
  /// /dev/dri/card0, waiting for a connector" while none is driven.
  static func describe(_ drm: DRMDisplay) -> String {
    guard !drm.waiting, let connector = drm.connector else {
      return "DRM \(drm.card.path), waiting for a connector"
    }
    let size = drm.pixelSize.map { "\($0.width)x\($0.height)" } ?? "?"
    let turned = drm.rotation == .none ? "" : ", rotated \(drm.rotation.rawValue)"
    return "DRM \(drm.card.path) \(connector.name) \(size)\(turned)"
  }

  /// `[Display] Font=`, nil when unset (each display then picks its default).
  private static func font(_ config: DisplayConfig) throws -> ScreenFont? {
    config.font.isEmpty ? nil : try DisplayFont.load(path: config.font)
  }
}
