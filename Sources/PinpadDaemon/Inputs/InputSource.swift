import PinpadCore
import PinpadSystem

/// What an input hands the daemon.
public enum SourceEvent {
  /// An evdev key event (value 1 press, 0 release, 2 repeat) at `time`.
  case key(KeyCode, value: Int32, time: Instant)
  /// A key event from the keypad's card reader (pinpadd(8), CARD READERS).
  case cardKey(KeyCode, value: Int32, time: Instant)
  /// The card reader lost events (SYN_DROPPED).
  case cardDropped
  /// The source lost events (SYN_DROPPED).
  case dropped(time: Instant)
  /// The person asked to stop (Ctrl-C on the terminal input).
  case quit
  /// A keypad device appeared or went away (`keypad` events on the socket).
  case deviceAdded(path: String, role: DeviceRole = .keypad)
  case deviceRemoved(path: String, role: DeviceRole = .keypad)
  /// A touch or click on the on-screen keypad, in screen pixels, at `time`.
  case pointer(PointerAction, time: Instant)
  /// A pointer lost events or went away: let go of any key it holds, without pressing it.
  case pointerLost
}

/// A source of key events: the terminal, a recording, an evdev device.
public protocol InputSource: AnyObject {
  /// What `status` calls it ("terminal", a recording's path, "auto").
  var name: String { get }
  /// Starts delivering events, each with the keypad it belongs to, on the loop's thread.
  func start(loop: EventLoop, deliver: @escaping (_ keypad: String, SourceEvent) -> Void)
    throws(InputError)
  /// Stops and gives back what it took (terminal mode, grab). Safe to call twice.
  func close()
}

/// An input that cannot be used: exit 69 with this line.
public struct InputError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

extension SessionEvent {
  /// What `event`, from an input that feeds `keypad`, is to the Session; `padKey` finds
  /// the on-screen key under a pointer (the display hit-tests it).
  init(_ event: SourceEvent, keypad: String, padKey: (_ x: Int, _ y: Int) -> PadKey?) {
    switch event {
    case .quit: self = .quit(reason: "stopping: Ctrl-C or hang-up on the terminal input")
    case .deviceAdded(let path, let role):
      self = .deviceAdded(keypad: keypad, path: path, role: role)
    case .deviceRemoved(let path, let role):
      self = .deviceRemoved(keypad: keypad, path: path, role: role)
    case .dropped(let time): self = .dropped(keypad: keypad, stamp: time)
    case .key(let code, let value, let time):
      self = .key(keypad: keypad, code, value: value, stamp: time)
    case .cardKey(let code, let value, let time):
      self = .cardKey(keypad: keypad, code, value: value, stamp: time)
    case .cardDropped: self = .cardDropped(keypad: keypad)
    case .pointer(let action, let time):
      let key: PadKey?
      switch action {
      case .pressed(let x, let y), .moved(let x, let y), .released(let x, let y):
        key = padKey(x, y)
      }
      self = .padPress(keypad: keypad, action, key: key, stamp: time)
    case .pointerLost: self = .pointerLost
    }
  }
}
