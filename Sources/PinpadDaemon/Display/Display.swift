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
}

extension Display {
  public var pixelSize: (width: Int, height: Int)? { nil }
  public var layout: ScreenLayout? { nil }

  /// The on-screen keypad's key at a pixel of the last frame drawn, nil when none.
  public func padKey(atX x: Int, y: Int) -> PadKey? { layout?.padKey(atX: x, y: y) }
}

/// `--display none`: draws nothing.
public final class NoDisplay: Display {
  public init() {}
  public func show(_ model: ScreenModel) {}
  public func close() {}
}
