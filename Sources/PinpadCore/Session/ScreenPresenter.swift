/// Turns the state of the keypad being used into the `ScreenModel` every display
/// draws, and keeps the short-lived parts of the screen: a verdict shown for a few
/// seconds, a notice under the boxes, the lockout countdown.
///
/// Pure: time comes in, nothing is read or written.
public struct ScreenPresenter {
  /// How long a verdict and a notice stay, in nanoseconds (added for every code: a
  /// `Duration`'s arithmetic is 128-bit).
  private static let resultNanoseconds: Int64 = 3_000_000_000
  private static let noticeNanoseconds: Int64 = 2_000_000_000

  private var result: (phase: ScreenModel.Phase, until: Instant)? = nil
  private var notice: (text: String, until: Instant)? = nil
  /// Digit order of the on-screen keypad for the current entry.
  public var padCells: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
  public var pressedPadKey: PadKey? = nil

  public init() {}

  /// Shows `phase` (a verdict or a delivery failure) until it expires or a key is pressed.
  public mutating func showResult(_ phase: ScreenModel.Phase, now: Instant) {
    result = (phase, now.adding(nanoseconds: Self.resultNanoseconds))
  }

  public var hasResult: Bool { result != nil }

  /// A key was pressed: a shown verdict gives way to the entry.
  public mutating func keyPressed() { result = nil }

  public mutating func showFeedback(_ feedback: EntryFeedback, now: Instant) {
    let text: String
    switch feedback {
    case .tooShort: text = "Too short"
    case .full: text = "Maximum length reached"
    case .notAllowed: text = "Key not allowed"
    case .burstRejected: text = "Input rejected"
    case .busy: text = "Please wait"
    case .presentCard: text = ScreenText.presentCard
    case .cardRejected: text = "Card not read, try again"
    case .locked: return
    }
    notice = (text, now.adding(nanoseconds: Self.noticeNanoseconds))
  }

  /// Drops what has expired; true when that changed the screen.
  public mutating func expire(now: Instant) -> Bool {
    var changed = false
    if let r = result, r.until <= now {
      result = nil
      changed = true
    }
    if let n = notice, n.until <= now {
      notice = nil
      changed = true
    }
    return changed
  }

  /// When the screen next changes by itself: an expiry or the next countdown second.
  public func nextDeadline(machine: EntryMachine?, now: Instant) -> Instant? {
    nextDeadline(phase: machine?.phase, now: now)
  }

  /// The same for the machine's `phase` alone (nil: no machine).
  public func nextDeadline(phase: EntryPhase?, now: Instant) -> Instant? {
    var earliest = result?.until
    if let n = notice?.until, earliest.map({ n < $0 }) ?? true { earliest = n }
    if result == nil, case .locked(let until)? = phase, until > now {
      let left = until.nanoseconds.saturatingSubtract(now.nanoseconds)
      let intoSecond = left % 1_000_000_000
      let tick = now.adding(nanoseconds: intoSecond == 0 ? 1_000_000_000 : intoSecond)
      if earliest.map({ tick < $0 }) ?? true { earliest = tick }
    }
    return earliest
  }

  /// The frame for `machine` (nil: no keypad has been used yet). `awaitingPin`: its
  /// card was read and the PIN is due (card+pin); the prompt says so, the card is never
  /// shown.
  public func model(
    machine: EntryMachine?, rules: EntryConfig, display: DisplayConfig, now: Instant,
    awaitingPin: Bool = false
  ) -> ScreenModel {
    var model = ScreenModel()
    model.prompt = awaitingPin ? ScreenText.cardReadPrompt : display.prompt
    let length = machine?.length ?? 0
    switch rules.mask {
    case .fixed:
      // The same boxes whatever was typed: the length stays hidden.
      model.boxes = rules.length ?? rules.minLength
      model.filled = length > 0 ? model.boxes : 0
      model.cursor = nil
    case .dots, .digits:
      if let fixed = rules.length {
        model.boxes = fixed
      } else {
        model.boxes = min(max(rules.minLength, length + 1), rules.maxLength)
      }
      model.filled = min(length, model.boxes)
      model.cursor = model.filled < model.boxes ? model.filled : nil
      model.digits = machine?.visibleDigits()
      model.showsRevealToggle = rules.mask == .dots && !rules.revealKeys.isEmpty
      model.revealed = machine?.isRevealed ?? false
    }
    if let result {
      model.phase = result.phase
      model.filled = 0
      model.digits = nil
      model.cursor = nil
      model.revealed = false
    } else {
      switch machine?.phase ?? .idle {
      case .idle: model.phase = .idle
      case .entering: model.phase = .entering
      case .checking:
        model.phase = .checking
        model.cursor = nil
      case .locked(let until):
        let left = max(0, until.nanoseconds.saturatingSubtract(now.nanoseconds))
        model.phase = .locked(secondsLeft: Int((left + 999_999_999) / 1_000_000_000))
        model.cursor = nil
      }
    }
    model.notice = notice?.text
    if display.onScreenKeypad {
      model.keypad = OnScreenKeypadModel(digitCells: padCells, pressed: pressedPadKey)
    }
    return model
  }
}
