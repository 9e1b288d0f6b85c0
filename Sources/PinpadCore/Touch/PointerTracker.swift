/// The range an absolute axis reports (libevdev's absinfo minimum and maximum).
public struct AxisRange: Equatable, Sendable, CustomStringConvertible {
  public var minimum: Int32
  public var maximum: Int32

  public init(minimum: Int32, maximum: Int32) {
    self.minimum = minimum
    self.maximum = maximum
  }

  public var description: String { "\(minimum)...\(maximum)" }

  /// The pixel (0..<pixels) a value on this axis falls on: the axis' whole range spread
  /// over the screen, ends included, values outside clamped.
  public func pixel(_ value: Int32, pixels: Int) -> Int {
    guard pixels > 1, maximum > minimum else { return 0 }
    let span = Int64(maximum) - Int64(minimum)
    let offset = min(max(Int64(value) - Int64(minimum), 0), span)
    return Int((offset * Int64(pixels - 1) + span / 2) / span)
  }
}

/// What a touch or pointer did, in screen pixels, once per evdev report (`SYN_REPORT`).
public enum PointerAction: Equatable, Sendable {
  /// The finger went down or the button was pressed, at this point.
  case pressed(x: Int, y: Int)
  /// It moved while down.
  case moved(x: Int, y: Int)
  /// The finger lifted or the button was released, at this point.
  case released(x: Int, y: Int)
}

/// Turns one device's evdev events into `PointerAction`s on a screen of a given size.
///
/// - Absolute devices (touchscreens, tablets): `ABS_X`/`ABS_Y` scaled from their ranges;
///   a device with only multi-touch axes uses `ABS_MT_POSITION_X/Y` of slot 0 (the first
///   finger). `BTN_TOUCH` or `BTN_LEFT` is the press.
/// - Relative devices (mice): `REL_X`/`REL_Y` move a cursor that starts at the centre
///   and stays on the screen; `BTN_LEFT` is the press.
///
/// Changes are collected until `SYN_REPORT`, like the kernel groups them, so a touch
/// that lands reports its position and its press together. Pure: no I/O.
public struct PointerTracker: Equatable, Sendable {
  public enum Axes: Equatable, Sendable, CustomStringConvertible {
    /// `ABS_X`/`ABS_Y` with these ranges.
    case absolute(x: AxisRange, y: AxisRange)
    /// Only `ABS_MT_POSITION_X/Y` with these ranges.
    case multitouch(x: AxisRange, y: AxisRange)
    /// `REL_X`/`REL_Y`.
    case relative

    public var description: String {
      switch self {
      case .absolute(let x, let y): return "absolute x \(x) y \(y)"
      case .multitouch(let x, let y): return "multi-touch x \(x) y \(y)"
      case .relative: return "relative"
      }
    }
  }

  public let axes: Axes
  public let width: Int
  public let height: Int
  /// Where the pointer is, in pixels.
  public private(set) var x: Int
  public private(set) var y: Int
  /// The finger is down or the button pressed (as of the last report).
  public private(set) var isDown = false

  private var pendingX: Int
  private var pendingY: Int
  private var pendingDown = false
  private var slot: Int32 = 0

  public init(axes: Axes, width: Int, height: Int) {
    self.axes = axes
    self.width = max(1, width)
    self.height = max(1, height)
    x = self.width / 2
    y = self.height / 2
    pendingX = x
    pendingY = y
  }

  /// One evdev event; an action when it ends a report that changed something.
  public mutating func handle(type: UInt16, code: UInt16, value: Int32) -> PointerAction? {
    switch (type, axes) {
    case (EvdevCode.evAbs, .absolute(let rx, let ry)):
      if code == EvdevCode.absX { pendingX = rx.pixel(value, pixels: width) }
      if code == EvdevCode.absY { pendingY = ry.pixel(value, pixels: height) }
    case (EvdevCode.evAbs, .multitouch(let rx, let ry)):
      switch code {
      case EvdevCode.absMTSlot: slot = value
      case EvdevCode.absMTPositionX where slot == 0: pendingX = rx.pixel(value, pixels: width)
      case EvdevCode.absMTPositionY where slot == 0: pendingY = ry.pixel(value, pixels: height)
      case EvdevCode.absMTTrackingID where slot == 0: pendingDown = value >= 0
      default: break
      }
    case (EvdevCode.evRel, .relative):
      if code == EvdevCode.relX { pendingX = min(max(pendingX + Int(value), 0), width - 1) }
      if code == EvdevCode.relY { pendingY = min(max(pendingY + Int(value), 0), height - 1) }
    case (EvdevCode.evKey, _):
      if code == EvdevCode.btnTouch || code == EvdevCode.btnLeft { pendingDown = value != 0 }
    case (EvdevCode.evSyn, _) where code == EvdevCode.synReport:
      return report()
    case (EvdevCode.evSyn, _) where code == EvdevCode.synDropped:
      // Lost events: forget the half-built report; a press in progress is let go
      // without an action (the release after it would be a guess).
      pendingX = x
      pendingY = y
      pendingDown = false
      isDown = false
    default:
      break
    }
    return nil
  }

  private mutating func report() -> PointerAction? {
    let moved = pendingX != x || pendingY != y
    x = pendingX
    y = pendingY
    defer { isDown = pendingDown }
    switch (isDown, pendingDown) {
    case (false, true): return .pressed(x: x, y: y)
    case (true, false): return .released(x: x, y: y)
    case (true, true): return moved ? .moved(x: x, y: y) : nil
    case (false, false): return nil
    }
  }
}
