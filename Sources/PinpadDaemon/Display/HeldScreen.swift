import PinpadCore
import PinpadScreen
import PinpadSystem

/// What the pixel displays that hold a VT share (framebuffer, DRM): the renderer and its
/// in-memory canvas, the last model (drawn again when the VT comes back), and whether the
/// VT is switched away or the display closed. The display copies the canvas's dirty
/// rectangles out to its device.
struct HeldScreen {
  var renderer: ScreenRenderer
  var canvas: Canvas
  private(set) var lastModel: ScreenModel?
  private(set) var released = false
  var closed = false
  /// There is no screen to draw on (a DRM connector unplugged, or none yet): models are
  /// kept, not drawn, until `redraw`.
  var offScreen = false

  /// Which way a VT signal switched.
  enum Switch {
    /// Away: nothing is drawn until the VT comes back; the display lets the switch happen.
    case away
    /// Back, acknowledged: the canvas is drawn again whole, for the display to put out.
    case back
  }

  init(width: Int, height: Int, font: ScreenFont, rotation: ScreenRotation) {
    renderer = ScreenRenderer(font: font, rotation: rotation)
    canvas = Canvas(width: width, height: height)
  }

  /// Draws `model` on the canvas; false when nothing may be drawn (closed, or switched
  /// away: the model is kept for the return).
  mutating func draw(_ model: ScreenModel) -> Bool {
    guard !closed else { return false }
    lastModel = model
    guard !released, !offScreen else { return false }
    renderer.draw(model, on: &canvas)
    return true
  }

  /// Draws the last model again whole (unless switched away or closed): the screen
  /// lacks everything. Clears `offScreen`.
  mutating func redraw() {
    offScreen = false
    guard !released, !closed else { return }
    renderer.invalidate()
    if let lastModel { renderer.draw(lastModel, on: &canvas) }
  }

  /// A screen of another size (a new DRM mode): the layout is redone for it and the last
  /// model drawn on it whole.
  mutating func resize(width: Int, height: Int, font: ScreenFont, rotation: ScreenRotation) {
    renderer = ScreenRenderer(font: font, rotation: rotation)
    canvas = Canvas(width: width, height: height)
    redraw()
  }

  /// The VT's release or acquire signal (`terminal`'s); nil for another, or once closed.
  /// The acquire is acknowledged here; the release is the display's to allow.
  mutating func switched(by signo: Int32, terminal: VirtualTerminal) -> Switch? {
    guard !closed else { return nil }
    if signo == terminal.releaseSignal {
      released = true
      return .away
    }
    guard signo == terminal.acquireSignal else { return nil }
    try? terminal.acknowledgeAcquire()
    released = false
    if !offScreen { redraw() }
    return .back
  }
}
