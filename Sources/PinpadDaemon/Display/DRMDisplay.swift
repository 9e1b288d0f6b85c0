import Glibc
import PinpadCore
import PinpadDRM
import PinpadInput
import PinpadProgram
import PinpadScreen
import PinpadSystem

/// `--display drm[:CARD]`: draws through DRM/KMS (pinpadd.conf(5), [Display]), with no
/// `/dev/fb0` needed.
///
/// A connected connector (or `Connector=`) in its preferred mode (or `Mode=`) shows one of
/// two dumb buffers. Frames are drawn into an in-memory canvas; the changed rectangles
/// are copied (turned on the way, with `Rotate=`) into the buffer not on screen, which
/// is then flipped to; the flip's completion, read through the event loop, frees the
/// other one (`PageFlipper`). So a frame never shows half drawn, and only what changed
/// is written.
///
/// It holds the VT like the framebuffer display, and is DRM master only while that VT
/// is in front: master is dropped on a switch away and taken back, with a full redraw,
/// on the switch back.
///
/// Connectors are followed through udev's `drm` events (pinpadd(8), DISPLAY): one
/// unplugged stops the drawing (the session goes on), one plugged in is driven again,
/// in new buffers when its mode has another size (`DRMHotplug` decides). With no
/// connected connector at the start it waits for one, when asked to.
public final class DRMDisplay: Display, VirtualTerminalHolder {
  public let card: DRMCard
  /// The connector shown, or last shown; nil before one was.
  public private(set) var connector: DRMConnectorSummary?
  public private(set) var rotation: ScreenRotation = .none
  private let config: DisplayConfig
  private let font: ScreenFont?
  /// What is driven now, and whether the driver refused a flip.
  private var state = State.waiting(flipRefused: false)
  /// What the CRTC first driven showed before, and the connector, put back at exit.
  private var saved: (crtc: DRMSavedCrtc, connector: UInt32)?
  private var buffers: [DRMBuffer] = []
  private var flipper = PageFlipper(width: 1, height: 1)
  private var terminal: VirtualTerminal?
  /// Whether to take the VT when a connector is first driven.
  private let takesTerminal: Bool
  private var screen: HeldScreen
  private let loop: EventLoop?
  private let log: Logger?
  private var monitor: UdevMonitor?

  /// Where the display stands with its card. (Where the screen stands, VT switches and
  /// the close included, is `screen.state`.)
  ///
  ///     waiting ──drive──▶ driving ──stopShowing──▶ waiting
  ///
  /// `drive`: a connector found (at the start, or plugged in), or another mode of it
  /// (from either state); `stopShowing`: it was unplugged, or driving it failed.
  ///
  /// `flipRefused`, kept from state to state: the driver refused a page flip (logged
  /// once in the display's life); each frame is still flipped when it can be, and shown
  /// by a modeset when not.
  private enum State {
    /// No connector is driven: none yet, or it was unplugged.
    case waiting(flipRefused: Bool)
    /// `output` is driven: frames are drawn and put on screen.
    case driving(Output, flipRefused: Bool)

    var output: Output? {
      if case .driving(let output, _) = self { return output }
      return nil
    }
    var flipRefused: Bool {
      switch self {
      case .waiting(let refused), .driving(_, let refused): refused
      }
    }
  }

  private struct Output {
    var connector: UInt32
    var crtc: UInt32
    var mode: DRMMode
  }

  /// No connector to drive; `mayAppear` when one may be plugged in later.
  public struct NoConnector: Error, CustomStringConvertible {
    public var description: String
    public var mayAppear: Bool
  }

  /// Opens `path`, chooses the connector and mode, takes the VT (unless `takeTerminal`
  /// is false), makes the two buffers, shows the first and watches the card's events and
  /// udev's on `loop` (without one, each flip is waited for at once and connectors are
  /// not followed). With nothing connected it throws `NoConnector`, or, when
  /// `waitForConnector` and given a loop, logs one line and waits for a connector; the
  /// VT is left alone until one is driven.
  public init(
    path: String, config: DisplayConfig, loop: EventLoop?, takeTerminal: Bool = true,
    font: ScreenFont?, log: Logger? = nil, waitForConnector: Bool = false
  ) throws {
    card = try DRMCard(path: path)
    self.config = config
    self.font = font
    self.loop = loop
    self.log = log
    takesTerminal = takeTerminal
    // A stand-in until there is a screen: nothing is drawn on it.
    screen = HeldScreen(width: 1, height: 1, font: font ?? .builtin, rotation: .none)
    screen.lostScreen()
    do {
      // Watching first, so that a connector plugged in while this probes is not missed.
      if let loop { watchConnectors(on: loop) }
      let connectors = try card.connectors()
      var choice: DRMConnectorChoice.Choice? = nil
      switch DRMConnectorChoice.choose(
        connectors.map(\.summary), named: config.connector, size: config.mode)
      {
      case .success(let chosen): choice = chosen
      case .failure(let problem):
        guard waitForConnector, problem.mayAppear, loop != nil else {
          throw NoConnector(description: "\(path): \(problem)", mayAppear: problem.mayAppear)
        }
        log?.info("display: waiting for a connected connector on \(path) (\(problem))")
      }
      if let choice {
        try drive(connectors[choice.connector], mode: choice.mode, newBuffers: true)
      }
      if let loop {
        do {
          try loop.watch(card.fd, .readable) { [unowned self] _ in self.flipCompleted() }
        } catch {
          throw SystemError("cannot watch \(path)", error)
        }
      }
    } catch {
      close()
      throw error
    }
  }

  /// The first card of `/dev/dri` that opens with a connected connector. When none has
  /// one and `waitForConnector`, the first that has connectors, waiting for one; else
  /// throws what each card said.
  public static func first(
    config: DisplayConfig, loop: EventLoop?, font: ScreenFont?, log: Logger?,
    waitForConnector: Bool = false, directory: String = "/dev/dri"
  ) throws -> DRMDisplay {
    var problems: [String] = []
    var waitOn: String? = nil
    for path in DRMCard.cardPaths(directory: directory) {
      do {
        return try DRMDisplay(path: path, config: config, loop: loop, font: font, log: log)
      } catch {
        if let none = error as? NoConnector, none.mayAppear, waitOn == nil { waitOn = path }
        problems.append("\(error)")
      }
    }
    if waitForConnector, let waitOn {
      return try DRMDisplay(
        path: waitOn, config: config, loop: loop, font: font, log: log, waitForConnector: true)
    }
    throw SystemError.failure(
      problems.isEmpty ? "no DRM card in \(directory)" : problems.joined(separator: "; "))
  }

  /// True while no connector is driven (none yet, or it was unplugged).
  public var waiting: Bool { state.output == nil }

  public var pixelSize: (width: Int, height: Int)? {
    waiting ? nil : (screen.width, screen.height)
  }
  public var layout: ScreenLayout? { waiting ? nil : screen.renderer.layout }

  public func show(_ model: ScreenModel) {
    guard screen.draw(model) else { return }
    flipper.changed(screen.takeDirty())
    pump()
  }

  /// Brings the back buffer up to date and flips to it, unless a flip is on its way.
  private func pump() {
    guard case .driving(let output, let flipRefused) = state, !screen.isReleased,
      !screen.isClosed, let (buffer, rects) = flipper.next()
    else { return }
    write(rects, into: buffer)
    do {
      try card.flip(crtc: output.crtc, to: buffers[buffer].framebuffer)
    } catch {
      // A driver that refuses to flip: show the buffer by a modeset instead.
      if !flipRefused {
        state = .driving(output, flipRefused: true)
        log?.warning("display: \(error); setting the mode for each frame instead")
      }
      do { try showNow(buffer, rects, on: output) } catch { return }
    }
    if loop == nil { waitForFlip() }
  }

  /// Shows `buffer`, just written with `rects`, by a modeset at once; when refused, the
  /// buffer still lacks them.
  private func showNow(_ buffer: Int, _ rects: [Rect], on output: Output) throws {
    do {
      try card.show(
        buffers[buffer].framebuffer, crtc: output.crtc, connector: output.connector,
        mode: output.mode)
      flipper.flipped()
    } catch {
      flipper.flipFailed(rects)
      throw error
    }
  }

  private func write(_ rects: [Rect], into index: Int) {
    let buffer = buffers[index]
    screen.write(
      .xrgb8888, rects: rects, to: buffer.memory, lineLength: buffer.pitch,
      capacity: buffer.size)
  }

  /// The card's descriptor is readable: flips completed.
  private func flipCompleted() {
    guard !screen.isClosed, card.readEvents() > 0 else { return }
    flipper.flipped()
    pump()
  }

  /// Without a loop (a test, the bench): waits up to a second for the flip's event.
  private func waitForFlip() {
    guard flipper.flipPending else { return }
    var poller = pollfd(fd: card.fd.rawValue, events: Int16(POLLIN), revents: 0)
    if poll(&poller, 1, 1000) > 0, card.readEvents() > 0 { flipper.flipped() }
  }

  /// VT release: stop drawing, give up DRM master, let the switch happen. Acquire:
  /// acknowledge, take master back, and put the whole picture on screen by a modeset
  /// (another program set its own mode meanwhile).
  public func handleSignal(_ signo: Int32) {
    guard let terminal else { return }
    switch screen.switched(by: signo, terminal: terminal) {
    case .away?:
      try? card.dropMaster()
      try? terminal.allowRelease()
    case .back?:
      do { try card.setMaster() } catch { log?.warning("display: \(error)") }
      // Connectors are probed in full only by the master: see what changed meanwhile.
      if !followConnectors() { putOnScreen() }
    case nil:
      break
    }
  }

  /// Drives `connector` in its mode `index`: in new buffers of that size (the layout
  /// redone for it) when `newBuffers`, else in those there are; the whole picture is put
  /// on screen, then the buffers replaced are freed.
  private func drive(_ connector: DRMConnector, mode index: Int, newBuffers: Bool) throws {
    if takesTerminal, terminal == nil {
      let vt = VirtualTerminal(driver: try LinuxVirtualTerminalDriver(path: nil))
      try vt.take()
      terminal = vt
    }
    let mode = connector.modes[index]
    let crtc = try card.crtc(for: connector)
    let width = mode.width
    let height = mode.height
    let turn = config.rotate ?? connector.summary.panelRotation ?? .none
    var replaced: [DRMBuffer] = []
    if newBuffers || buffers.isEmpty {
      var fresh: [DRMBuffer] = []
      do {
        for _ in 0..<2 { fresh.append(try card.makeBuffer(width: width, height: height)) }
      } catch {
        for buffer in fresh { card.free(buffer) }
        throw error
      }
      replaced = buffers
      buffers = fresh
      flipper = PageFlipper(width: width, height: height)
    }
    if !replaced.isEmpty || turn != rotation || screen.width != width || screen.height != height {
      rotation = turn
      let pictureHeight = turn.pictureSize(screenWidth: width, screenHeight: height).height
      screen.resize(
        width: width, height: height,
        font: font ?? DisplayFont.preferred(forHeight: pictureHeight), rotation: turn)
    } else {
      screen.redraw()
    }
    if saved == nil, let before = card.crtcState(crtc) { saved = (before, connector.id) }
    state = .driving(
      Output(connector: connector.id, crtc: crtc, mode: mode), flipRefused: state.flipRefused)
    self.connector = connector.summary
    putOnScreen()
    for buffer in replaced { card.free(buffer) }
  }

  /// Writes the whole picture into a buffer and shows it by a modeset (after a VT switch
  /// back, a connector plugged in, a new mode: another program may have set its own mode
  /// meanwhile). A flip still on its way is taken as done: the modeset supersedes it, and
  /// on a connector gone it may never complete.
  private func putOnScreen() {
    guard let output = state.output, !screen.isReleased, !screen.isClosed else { return }
    _ = screen.takeDirty()
    flipper.invalidate()
    flipper.flipped()
    guard let (buffer, rects) = flipper.next() else { return }
    write(rects, into: buffer)
    do { try showNow(buffer, rects, on: output) } catch { log?.warning("display: \(error)") }
  }

  /// Watches udev's `drm` events: a connector plugged in or out. Without udev they are
  /// not followed (a warning).
  private func watchConnectors(on loop: EventLoop) {
    do {
      let monitor = try UdevMonitor(subsystem: "drm")
      try loop.watch(monitor.fd, .readable) { [unowned self] _ in self.devicesChanged() }
      self.monitor = monitor
    } catch {
      log?.warning("display: connectors plugged in or out are not followed: \(error)")
    }
  }

  /// udev told of DRM devices: when one is this card or its connectors, follow them.
  private func devicesChanged() {
    let card = String(self.card.path.split(separator: "/").last ?? "")
    var ours = false
    while let event = monitor?.receiveEvent() {
      if event.sysname == card || event.sysname.hasPrefix(card + "-") { ours = true }
    }
    if ours { _ = followConnectors() }
  }

  /// Probes the connectors again and does what `DRMHotplug` decides; false when that is
  /// nothing.
  private func followConnectors() -> Bool {
    guard !screen.isClosed else { return false }
    let connectors: [DRMConnector]
    do { connectors = try card.connectors() } catch {
      log?.warning("display: \(error)")
      return false
    }
    let shown = state.output.flatMap { output in
      connector.map {
        DRMHotplug.Shown(
          connector: $0.name,
          mode: .init(
            width: output.mode.width, height: output.mode.height, refresh: output.mode.refresh))
      }
    }
    let action = DRMHotplug.react(
      showing: shown, buffers: buffers.first.map { ($0.width, $0.height) },
      connectors: connectors.map(\.summary), named: config.connector, size: config.mode)
    switch action {
    case .nothing:
      return false
    case .stop(let reason):
      stopShowing()
      log?.info(
        "display: \(connector?.name ?? "connector") gone (\(reason)); waiting for a connected connector on \(card.path)"
      )
    case .showAgain(let choice), .newMode(let choice):
      do {
        try drive(
          connectors[choice.connector], mode: choice.mode, newBuffers: action == .newMode(choice))
        log?.info("display: \(DisplaySetup.describe(self))")
      } catch {
        stopShowing()
        log?.warning("display: \(error)")
      }
    }
    return true
  }

  /// Nothing is driven: frames are kept, not drawn, until a connector is.
  private func stopShowing() {
    state = .waiting(flipRefused: state.flipRefused)
    screen.lostScreen()
  }

  /// Puts back what the CRTC showed before (unless switched away), frees the buffers,
  /// gives back the VT modes and closes the card (the kernel's console takes the screen
  /// back when it has one).
  public func close() {
    guard !screen.isClosed else { return }
    screen.close()
    loop?.unwatch(card.fd)
    if let monitor { loop?.unwatch(monitor.fd) }
    monitor = nil
    if !screen.isReleased, let saved { card.restore(saved.crtc, connector: saved.connector) }
    for buffer in buffers { card.free(buffer) }
    buffers = []
    terminal?.close()
    card.close()
  }

  deinit { close() }
}

/// A display holding a VT, told of its release and acquire signals by the daemon.
public protocol VirtualTerminalHolder: AnyObject {
  func handleSignal(_ signo: Int32)
}

extension FramebufferDisplay: VirtualTerminalHolder {}
