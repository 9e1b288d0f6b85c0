import PinpadCore
import PinpadScreen

/// Where the person at the keypad sees what is happening: a framebuffer, a text
/// console, image snapshots, or nothing.
///
/// The daemon calls these on its one event-loop thread. A display draws the model it
/// is given and keeps no other state about the entry.
public protocol Display: AnyObject {
  /// Draws `model`; called whenever it changed.
  func show(_ model: ScreenModel)
  /// Gives back whatever the display took (terminal mode, VT mode, keyboard mode) and
  /// clears what it drew. Safe to call more than once; called on every exit path.
  func close()
  /// The screen's size in pixels; nil for a display without pixels (console, none).
  var pixelSize: (width: Int, height: Int)? { get }
  /// Where everything went in the last frame drawn; nil before one, or without pixels.
  var layout: ScreenLayout? { get }
  /// How far the picture is turned on the screen (`[Display] Rotate=`).
  var rotation: ScreenRotation { get }
}

extension Display {
  public var pixelSize: (width: Int, height: Int)? { nil }
  public var layout: ScreenLayout? { nil }
  public var rotation: ScreenRotation { .none }

  /// The on-screen keypad's key at a screen pixel of the last frame drawn, nil when
  /// none: the point is turned back into the picture first.
  public func padKey(atX x: Int, y: Int) -> PadKey? {
    guard let size = pixelSize else { return layout?.padKey(atX: x, y: y) }
    let point = rotation.picturePoint(
      screenX: x, screenY: y, screenWidth: size.width, screenHeight: size.height)
    return layout?.padKey(atX: point.x, y: point.y)
  }
}

/// `--display none`: draws nothing.
public final class NoDisplay: Display {
  public init() {}
  public func show(_ model: ScreenModel) {}
  public func close() {}
}
