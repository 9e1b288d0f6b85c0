import CLibdrm
import Glibc
import PinpadCore
import PinpadDRM
import PinpadProgram
import PinpadScreen
import PinpadSystem

/// `--display drm[:CARD]`: draws through DRM/KMS (pinpadd.conf(5), [Display]), with no
/// `/dev/fb0` needed.
///
/// A connected connector (or `Connector=`) in its preferred mode (or `Mode=`) shows one of
/// two dumb buffers. Frames are drawn into an in-memory canvas; the changed rectangles
/// are copied into the buffer not on screen, which is then flipped to; the flip's
/// completion, read through the event loop, frees the other one (`PageFlipper`). So a
/// frame never shows half drawn, and only what changed is written.
///
/// It holds the VT like the framebuffer display, and is DRM master only while that VT
/// is in front: master is dropped on a switch away and taken back, with a full redraw,
/// on the switch back.
public final class DRMDisplay: Display, VirtualTerminalHolder {
  public let card: DRMCard
  public let connector: DRMConnectorSummary
  public let rotation: ScreenRotation
  private let connectorID: UInt32
  private let crtc: UInt32
  private let mode: drmModeModeInfo
  private let saved: drmModeCrtc?
  private var buffers: [DRMBuffer]
  private var flipper: PageFlipper
  private let terminal: VirtualTerminal?
  private var screen: HeldScreen
  private let loop: EventLoop?
  private let log: Logger?
  private var flipFailureLogged = false

  /// Opens `path`, chooses the connector and mode, makes the two buffers, takes the VT
  /// (unless `takeTerminal` is false), shows the first buffer and watches the card's
  /// events on `loop` (without one, each flip is waited for at once).
  public init(
    path: String, config: DisplayConfig, loop: EventLoop?, takeTerminal: Bool = true,
    font: BitmapFont?, log: Logger? = nil
  ) throws {
    let card = try DRMCard(path: path)
    let connectors = try card.connectors()
    let choice: DRMConnectorChoice.Choice
    switch DRMConnectorChoice.choose(
      connectors.map(\.summary), named: config.connector, size: config.mode)
    {
    case .success(let chosen): choice = chosen
    case .failure(let problem): throw SystemError.failure("\(path): \(problem)")
    }
    let connector = connectors[choice.connector]
    let mode = connector.modes[choice.mode]
    let crtc = try card.crtc(for: connector)
    let width = Int(mode.hdisplay)
    let height = Int(mode.vdisplay)
    var buffers: [DRMBuffer] = []
    var terminal: VirtualTerminal? = nil
    do {
      for _ in 0..<2 { buffers.append(try card.makeBuffer(width: width, height: height)) }
      if takeTerminal {
        let vt = VirtualTerminal(driver: try LinuxVirtualTerminalDriver(path: nil))
        try vt.take()
        terminal = vt
      }
      saved = card.crtcState(crtc)
      try card.show(buffers[0].framebuffer, crtc: crtc, connector: connector.id, mode: mode)
    } catch {
      terminal?.close()
      for buffer in buffers { card.free(buffer) }
      card.close()
      throw error
    }
    self.card = card
    self.connector = connector.summary
    connectorID = connector.id
    self.crtc = crtc
    self.mode = mode
    self.buffers = buffers
    self.terminal = terminal
    self.loop = loop
    self.log = log
    rotation = config.rotate ?? connector.summary.panelRotation ?? .none
    flipper = PageFlipper(width: width, height: height)
    let pictureHeight = rotation.pictureSize(screenWidth: width, screenHeight: height).height
    screen = HeldScreen(
      width: width, height: height, font: font ?? DisplayFont.standard(forHeight: pictureHeight),
      rotation: rotation)
    if let loop {
      do {
        try loop.watch(card.fd, .readable) { [unowned self] _ in self.flipCompleted() }
      } catch {
        close()
        throw SystemError("cannot watch \(path)", error)
      }
    }
  }

  /// The first card of `/dev/dri` that opens with a connected connector; throws what
  /// each one said when none does.
  public static func first(
    config: DisplayConfig, loop: EventLoop?, font: BitmapFont?, log: Logger?,
    directory: String = "/dev/dri"
  ) throws -> DRMDisplay {
    var problems: [String] = []
    for path in DRMCard.cardPaths(directory: directory) {
      do {
        return try DRMDisplay(path: path, config: config, loop: loop, font: font, log: log)
      } catch {
        problems.append("\(error)")
      }
    }
    throw SystemError.failure(
      problems.isEmpty ? "no DRM card in \(directory)" : problems.joined(separator: "; "))
  }

  public var pixelSize: (width: Int, height: Int)? { (screen.canvas.width, screen.canvas.height) }
  public var layout: ScreenLayout? { screen.renderer.layout }

  public func show(_ model: ScreenModel) {
    guard screen.draw(model) else { return }
    flipper.changed(screen.canvas.takeDirty())
    pump()
  }

  /// Brings the back buffer up to date and flips to it, unless a flip is on its way.
  private func pump() {
    guard !screen.released, !screen.closed, let (buffer, rects) = flipper.next() else { return }
    write(rects, into: buffer)
    do {
      try card.flip(crtc: crtc, to: buffers[buffer].framebuffer)
    } catch {
      // A driver that refuses to flip: show the buffer by a modeset instead.
      if !flipFailureLogged {
        flipFailureLogged = true
        log?.warning("display: \(error); setting the mode for each frame instead")
      }
      do {
        try card.show(buffers[buffer].framebuffer, crtc: crtc, connector: connectorID, mode: mode)
        flipper.flipped()
      } catch {
        flipper.flipFailed(rects)
        return
      }
    }
    if loop == nil { waitForFlip() }
  }

  private func write(_ rects: [Rect], into index: Int) {
    let buffer = buffers[index]
    PixelFormat.xrgb8888.write(
      screen.canvas, rects: rects, to: buffer.memory, lineLength: buffer.pitch,
      capacity: buffer.size)
  }

  /// The card's descriptor is readable: flips completed.
  private func flipCompleted() {
    guard !screen.closed, card.readEvents() > 0 else { return }
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
      _ = screen.canvas.takeDirty()
      flipper.invalidate()
      guard !flipper.flipPending, let (buffer, rects) = flipper.next() else { return }
      write(rects, into: buffer)
      do {
        try card.show(buffers[buffer].framebuffer, crtc: crtc, connector: connectorID, mode: mode)
        flipper.flipped()
      } catch {
        flipper.flipFailed(rects)
        log?.warning("display: \(error)")
      }
    case nil:
      break
    }
  }

  /// Puts back what the CRTC showed before (unless switched away), frees the buffers,
  /// gives back the VT modes and closes the card (the kernel's console takes the screen
  /// back when it has one).
  public func close() {
    guard !screen.closed else { return }
    screen.closed = true
    loop?.unwatch(card.fd)
    if !screen.released, let saved { card.restore(saved, connector: connectorID) }
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
