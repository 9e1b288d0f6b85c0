/// The press and release logic of the on-screen keypad, like a phone's buttons: a key
/// shows pressed while the finger is on it, a finger that slides off lets it go (and
/// sliding back presses it again), and a key counts only when the finger lifts on the
/// key it went down on.
///
/// Give it the key under each `PointerAction`'s point (nil: no key there). Pure.
public struct PadPress: Equatable, Sendable {
  /// The key to draw pressed, nil when none.
  public private(set) var shown: PadKey? = nil
  /// The key the finger went down on, while it is down.
  private var origin: PadKey? = nil
  private var down = false

  public init() {}

  /// Returns the key that was activated (lifted on the key it went down on), if any.
  public mutating func handle(_ action: PointerAction, key: PadKey?) -> PadKey? {
    switch action {
    case .pressed:
      down = true
      origin = key
      shown = key
      return nil
    case .moved:
      guard down else { return nil }
      shown = key == origin ? origin : nil
      return nil
    case .released:
      let activated = down && key != nil && key == origin ? key : nil
      down = false
      origin = nil
      shown = nil
      return activated
    }
  }

  /// Lets go of any press without activating it (events lost, device gone).
  public mutating func cancel() {
    down = false
    origin = nil
    shown = nil
  }
}

extension PadKey {
  /// The key an on-screen key types into the entry: `KEY_n` for a digit, the first of
  /// `BackspaceKeys` for Backspace, the first of `SubmitKeys` for OK; nil when the rules
  /// have no such key (OK under a fixed length without submit keys).
  public func keyCode(rules: EntryConfig) -> KeyCode? {
    switch self {
    case .digit(let digit): return .mainRow(digit)
    case .backspace: return rules.backspaceKeys.first
    case .ok: return rules.submitKeys.first
    }
  }
}

extension PadKey {
  /// A digit key (what logs must never name).
  public var isDigit: Bool {
    if case .digit = self { return true }
    return false
  }
}
