import PinpadCore
import PinpadScreen
import PinpadSystem

/// What the pixel displays that hold a VT share (framebuffer, DRM): the renderer and its
/// in-memory picture, the last model (drawn again when the VT comes back), and where the
/// screen stands (`State`: drawn on, without a screen, switched away, closed). The display copies the changed screen
/// rectangles out to its device (`takeDirty`, `write`).
///
/// With a `rotation` (pinpadd.conf(5), [Display] Rotate=) the picture is drawn upright,
/// at the turned size, and turned only as it is written out: turning and converting in
/// one pass, never a turned copy of it in memory.
struct HeldScreen {
  /// Draws the upright picture; the layout is the picture's, as a turned renderer's.
  var renderer: ScreenRenderer
  /// The picture, upright: the screen's sides swapped at 90 and 270 degrees.
  private(set) var picture: Canvas
  /// How far the picture is turned on the screen, clockwise.
  private(set) var rotation: ScreenRotation
  private(set) var lastModel: ScreenModel?
  private(set) var state = State.showing

  /// Where the screen stands. Models are drawn only while `showing`; in the other live
  /// states they are kept for the return.
  ///
  ///     showing ──lostScreen──▶ offScreen ──redraw──▶ showing
  ///        │  ▲                    │  ▲
  ///   away │  │ back          away │  │ back
  ///        ▼  │                    ▼  │
  ///     switchedAway(offScreen: false / true)     any ──close──▶ closed
  enum State: Equatable {
    case showing
    /// There is no screen to draw on (a DRM connector unplugged, or none yet).
    case offScreen
    /// The VT is switched away (and whether there is a screen to come back to).
    case switchedAway(offScreen: Bool)
    case closed
  }

  /// The VT is switched away: nothing may touch the device.
  var isReleased: Bool {
    if case .switchedAway = state { return true }
    return false
  }
  var isClosed: Bool { state == .closed }

  /// Which way a VT signal switched.
  enum Switch {
    /// Away: nothing is drawn until the VT comes back; the display lets the switch happen.
    case away
    /// Back, acknowledged: the picture is drawn again whole, for the display to put out.
    case back
  }

  init(width: Int, height: Int, font: ScreenFont, rotation: ScreenRotation) {
    renderer = ScreenRenderer(font: font)
    self.rotation = rotation
    picture = Self.blankPicture(width: width, height: height, rotation: rotation)
  }

  /// A picture for a screen of `width` x `height` turned by `rotation`.
  private static func blankPicture(width: Int, height: Int, rotation: ScreenRotation) -> Canvas {
    let size = rotation.pictureSize(screenWidth: width, screenHeight: height)
    return Canvas(width: size.width, height: size.height)
  }

  /// The screen's sides.
  var width: Int { rotation.swapsSides ? picture.height : picture.width }
  var height: Int { rotation.swapsSides ? picture.width : picture.height }

  /// The screen rectangles changed since the last call.
  mutating func takeDirty() -> [Rect] {
    picture.takeDirty().map(screenRect)
  }

  /// Writes the screen's `rects` in `format` at `base` (as `PixelFormat.write`), the
  /// picture turned on the way.
  func write(
    _ format: PixelFormat, rects: [Rect], to base: UnsafeMutableRawPointer, lineLength: Int,
    xOffset: Int = 0, yOffset: Int = 0, capacity: Int
  ) {
    format.write(
      picture, turnedBy: rotation, rects: rects, to: base, lineLength: lineLength,
      xOffset: xOffset, yOffset: yOffset, capacity: capacity)
  }

  private func screenRect(_ rect: Rect) -> Rect {
    Canvas.screenRect(
      of: rect, rotation: rotation, pictureWidth: picture.width, pictureHeight: picture.height)
  }

  /// Draws `model` on the picture; false when nothing may be drawn (closed; or without
  /// a screen or switched away: the model is kept for the return).
  mutating func draw(_ model: ScreenModel) -> Bool {
    guard state != .closed else { return false }
    lastModel = model
    guard state == .showing else { return false }
    renderer.draw(model, on: &picture)
    return true
  }

  /// There is no screen to draw on any more (or not yet): models are kept, not drawn,
  /// until `redraw`.
  mutating func lostScreen() {
    switch state {
    case .showing: state = .offScreen
    case .switchedAway: state = .switchedAway(offScreen: true)
    case .offScreen, .closed: break
    }
  }

  /// There is a screen (again): the last model is drawn whole on it, unless switched
  /// away or closed.
  mutating func redraw() {
    switch state {
    case .offScreen: state = .showing
    case .switchedAway: state = .switchedAway(offScreen: false)
    case .showing, .closed: break
    }
    guard state == .showing else { return }
    renderer.invalidate()
    if let lastModel { renderer.draw(lastModel, on: &picture) }
  }

  /// The display is closed: nothing is drawn or switched any more.
  mutating func close() { state = .closed }

  /// A screen of another size (a new DRM mode): the layout is redone for it and the last
  /// model drawn on it whole.
  mutating func resize(width: Int, height: Int, font: ScreenFont, rotation: ScreenRotation) {
    renderer = ScreenRenderer(font: font)
    self.rotation = rotation
    picture = Self.blankPicture(width: width, height: height, rotation: rotation)
    redraw()
  }

  /// The VT's release or acquire signal (`terminal`'s); nil for another, or once closed.
  /// The acquire is acknowledged here; the release is the display's to allow.
  mutating func switched(by signo: Int32, terminal: VirtualTerminal) -> Switch? {
    guard state != .closed else { return nil }
    if signo == terminal.releaseSignal {
      if !isReleased { state = .switchedAway(offScreen: state == .offScreen) }
      return .away
    }
    guard signo == terminal.acquireSignal else { return nil }
    try? terminal.acknowledgeAcquire()
    if case .switchedAway(let offScreen) = state {
      state = offScreen ? .offScreen : .showing
      if !offScreen { redraw() }
    }
    return .back
  }
}
