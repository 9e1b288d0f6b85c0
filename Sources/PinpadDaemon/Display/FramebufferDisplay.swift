import Glibc
import PinpadCore
import PinpadScreen
import PinpadSystem

/// `--display fb[:DEVICE]`: draws on a Linux framebuffer, holding its virtual terminal.
///
/// Frames are drawn into an in-memory canvas; only the changed rectangles are converted
/// to the device's pixel format (and turned, with `Rotate=`) and written out, and the
/// mapped memory is never read. While the VT is switched away nothing is written; on
/// return everything is redrawn.
/// The daemon routes `vtSignals` from its signalfd to `handleSignal(_:)`.
public final class FramebufferDisplay: Display {
  /// Release (SIGUSR1) and acquire (SIGUSR2) of the VT; block them and pass them in.
  public static let vtSignals: [Int32] = [SIGUSR1, SIGUSR2]

  public let framebuffer: Framebuffer
  public let format: PixelFormat
  public let rotation: ScreenRotation
  private let terminal: VirtualTerminal?
  private var screen: HeldScreen

  /// Opens `device`, takes the active VT (or `tty`) unless `takeTerminal` is false, and
  /// clears the screen. Everything taken is given back if a later step fails.
  public convenience init(
    device: String = "/dev/fb0", tty: String? = nil, takeTerminal: Bool = true,
    font: ScreenFont? = nil, rotation: ScreenRotation = .none
  ) throws {
    let framebuffer = try Framebuffer(path: device)
    var terminal: VirtualTerminal? = nil
    if takeTerminal {
      let vt = VirtualTerminal(driver: try LinuxVirtualTerminalDriver(path: tty))
      try vt.take()
      terminal = vt
    }
    let picture = rotation.pictureSize(
      screenWidth: framebuffer.info.width, screenHeight: framebuffer.info.height)
    try self.init(
      framebuffer: framebuffer, terminal: terminal,
      font: font ?? DisplayFont.preferred(forHeight: picture.height), rotation: rotation)
  }

  /// A display on an already open framebuffer and taken terminal (tests pass fakes).
  public init(
    framebuffer: Framebuffer, terminal: VirtualTerminal?, font: ScreenFont = .builtin,
    rotation: ScreenRotation = .none
  ) throws {
    let info = framebuffer.info
    let format = PixelFormat(
      bitsPerPixel: info.bitsPerPixel, red: .init(offset: info.red.offset, length: info.red.length),
      green: .init(offset: info.green.offset, length: info.green.length),
      blue: .init(offset: info.blue.offset, length: info.blue.length))
    guard format.isSupported else {
      terminal?.close()
      framebuffer.close()
      throw SystemError.failure(
        "\(framebuffer.path): pixel format \(format) is not supported")
    }
    self.framebuffer = framebuffer
    self.format = format
    self.terminal = terminal
    self.rotation = rotation
    screen = HeldScreen(width: info.width, height: info.height, font: font, rotation: rotation)
    framebuffer.clear()
  }

  public var width: Int { screen.width }
  public var height: Int { screen.height }
  public var pixelSize: (width: Int, height: Int)? { (width, height) }

  /// The layout of the last frame (for mapping touches to on-screen keys).
  public var layout: ScreenLayout? { screen.renderer.layout }

  /// Draws `model` and copies the changed rectangles to the framebuffer; while the VT
  /// is switched away only the model is kept, for the redraw on return.
  public func show(_ model: ScreenModel) {
    if screen.draw(model) { flush() }
  }

  private func flush() {
    let rects = screen.takeDirty()
    guard let memory = framebuffer.memory, !rects.isEmpty else { return }
    let info = framebuffer.info
    screen.write(
      format, rects: rects, to: memory, lineLength: info.lineLength, xOffset: info.xOffset,
      yOffset: info.yOffset, capacity: info.memoryLength)
  }

  /// The VT signals: on release stop drawing and let the switch happen; on acquire
  /// acknowledge and redraw the whole screen (another program drew there meanwhile).
  public func handleSignal(_ signo: Int32) {
    guard let terminal else { return }
    switch screen.switched(by: signo, terminal: terminal) {
    case .away?: try? terminal.allowRelease()
    case .back?: flush()
    case nil: break
    }
  }

  /// Clears the screen (unless switched away), gives back the VT modes and unmaps.
  public func close() {
    guard !screen.isClosed else { return }
    screen.close()
    if !screen.isReleased { framebuffer.clear() }
    terminal?.close()
    framebuffer.close()
  }

  deinit { close() }
}
