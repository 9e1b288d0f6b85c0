/// Everything a renderer needs to draw one frame (pinpadd.conf(5), [Display]), and
/// nothing secret unless it is meant to be seen: `digits` is set only while an entry is
/// revealed or under `Mask=digits`.
///
/// Renderers (console, framebuffer, snapshot) draw this model and nothing else, so
/// two models that are equal give identical frames.
public struct ScreenModel: Equatable, Sendable {
  public enum Phase: Equatable, Sendable {
    /// The prompt and empty boxes.
    case idle
    /// Digits are being typed.
    case entering
    /// The code went to the controller; waiting for its verdict.
    case checking
    /// The controller granted the code; `message` is its optional text.
    case granted(message: String?)
    /// Denied; `attemptsLeft` before a lockout, nil when unknown.
    case denied(message: String?, attemptsLeft: Int?)
    /// Locked out; whole seconds left, rounded up.
    case locked(secondsLeft: Int)
    /// No controller took the code.
    case unavailable
    /// The controller did not answer in time.
    case noResponse
  }

  public var phase: Phase = .idle
  /// The line above the boxes (`[Display] Prompt=`).
  public var prompt = "Enter PIN"
  /// How many boxes to draw (1...32).
  public var boxes = 4
  /// How many boxes hold a digit (0...boxes).
  public var filled = 0
  /// The digits to show in the filled boxes instead of dots; nil means masked.
  public var digits: [UInt8]? = nil
  /// The box that takes the next digit, nil when no cursor is drawn.
  public var cursor: Int? = 0
  /// A short transient line under the boxes ("Too short", "Not allowed").
  public var notice: String? = nil
  /// Draw the eye that tells a reveal key exists; `revealed` fills it.
  public var showsRevealToggle = false
  public var revealed = false
  /// The on-screen touch keypad, nil when `OnScreenKeypad=no`.
  public var keypad: OnScreenKeypadModel? = nil

  public init() {}
}

/// The keys of the on-screen keypad.
public enum PadKey: Hashable, Sendable {
  case digit(UInt8)
  case backspace
  case ok
}

/// A 3×4 pad like a phone's PIN screen: rows 1-2-3, 4-5-6, 7-8-9, then Backspace, 0, OK.
public struct OnScreenKeypadModel: Equatable, Sendable {
  /// The digits in the ten digit cells, in reading order (the 0 cell last).
  /// `[1,2,3,4,5,6,7,8,9,0]` for `KeypadLayout=phone`, a permutation when scrambled.
  public var digitCells: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
  /// The key drawn pressed, nil when none.
  public var pressed: PadKey? = nil
  public init(digitCells: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0], pressed: PadKey? = nil) {
    self.digitCells = digitCells
    self.pressed = pressed
  }

  /// The key in row 0...3, column 0...2.
  public func key(row: Int, column: Int) -> PadKey {
    switch (row, column) {
    case (3, 0): return .backspace
    case (3, 1): return .digit(digitCells[9])
    case (3, 2): return .ok
    default: return .digit(digitCells[row * 3 + column])
    }
  }
}
