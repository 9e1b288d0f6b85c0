import PinpadCore
import PinpadScreen
import Testing

private let start = Instant.seconds(100)

/// Default rules with keys acting at once (no burst grouping), edited.
private func entryRules(_ edit: (inout EntryConfig) -> Void = { _ in }) -> EntryConfig {
  var rules = EntryConfig()
  rules.burstInterval = .zero
  edit(&rules)
  return rules
}

private func display(_ edit: (inout DisplayConfig) -> Void = { _ in }) -> DisplayConfig {
  var display = DisplayConfig()
  edit(&display)
  return display
}

/// A real `EntryMachine` typed on 0.1 s apart, and the presenter drawing it.
private struct Screen {
  var rules: EntryConfig
  var display: DisplayConfig
  var machine: EntryMachine
  var presenter = ScreenPresenter()
  var now = start

  init(
    _ rules: EntryConfig = entryRules(), display: DisplayConfig = DisplayConfig(),
    state: LockoutState = LockoutState()
  ) {
    self.rules = rules
    self.display = display
    machine = EntryMachine(rules: rules, lockout: LockoutConfig(), state: state)
  }

  /// Digits as main-row keys; `E` Enter, `.` the reveal key, `<` Backspace.
  mutating func type(_ keys: String) {
    for key in keys {
      let code: KeyCode
      switch key {
      case "E": code = .enter
      case ".": code = .kpDot
      case "<": code = .backspace
      default: code = .mainRow(UInt8(String(key))!)
      }
      now = now + .milliseconds(100)
      _ = machine.handle(.key(code, value: 1), now: now)
      _ = machine.handle(.key(code, value: 0), now: now)
    }
  }

  /// Time passes; the machine and the presenter catch up.
  mutating func wait(_ duration: Duration) {
    now = now + duration
    _ = machine.handle(.tick, now: now)
    _ = presenter.expire(now: now)
  }

  var model: ScreenModel {
    presenter.model(machine: machine, rules: rules, display: display, now: now)
  }
}

/// A row of a boxes table: after typing `typed`, the boxes drawn.
struct BoxesCase: Sendable, CustomTestStringConvertible {
  var typed: String
  var boxes: Int
  var filled: Int
  var cursor: Int?
  var testDescription: String { "\(typed.count) digits" }
}

@Suite("Screen presenter")
struct ScreenPresenterTests {
  // MARK: - Boxes

  @Test("before any keypad is used the prompt and MinLength empty boxes show")
  func noMachine() {
    let model = ScreenPresenter().model(
      machine: nil, rules: entryRules(), display: display { $0.prompt = "Code, please" }, now: start
    )
    #expect(model.phase == .idle)
    #expect(model.prompt == "Code, please")
    #expect(model.boxes == 4)
    #expect(model.filled == 0)
    #expect(model.cursor == 0)
    #expect(model.digits == nil)
    #expect(model.notice == nil)
    #expect(model.keypad == nil)
  }

  @Test(
    "variable length: boxes grow one past the digits, from MinLength to MaxLength",
    arguments: [
      BoxesCase(typed: "", boxes: 4, filled: 0, cursor: 0),
      BoxesCase(typed: "1", boxes: 4, filled: 1, cursor: 1),
      BoxesCase(typed: "123", boxes: 4, filled: 3, cursor: 3),
      BoxesCase(typed: "1234", boxes: 5, filled: 4, cursor: 4),
      BoxesCase(typed: "1234567", boxes: 8, filled: 7, cursor: 7),
      BoxesCase(typed: "12345678", boxes: 8, filled: 8, cursor: nil),
      BoxesCase(typed: "123456789", boxes: 8, filled: 8, cursor: nil),
    ])
  func variableBoxes(_ row: BoxesCase) {
    var screen = Screen()
    screen.type(row.typed)
    let model = screen.model
    #expect(model.boxes == row.boxes)
    #expect(model.filled == row.filled)
    #expect(model.cursor == row.cursor)
    #expect(model.phase == (row.typed.isEmpty ? .idle : .entering))
  }

  @Test(
    "fixed length: Length boxes from the start, the cursor on the next one",
    arguments: [
      BoxesCase(typed: "", boxes: 6, filled: 0, cursor: 0),
      BoxesCase(typed: "1", boxes: 6, filled: 1, cursor: 1),
      BoxesCase(typed: "12345", boxes: 6, filled: 5, cursor: 5),
    ])
  func fixedBoxes(_ row: BoxesCase) {
    var screen = Screen(entryRules { $0.length = 6 })
    screen.type(row.typed)
    let model = screen.model
    #expect(model.boxes == row.boxes)
    #expect(model.filled == row.filled)
    #expect(model.cursor == row.cursor)
  }

  @Test("the box count follows MinLength and MaxLength")
  func customLengths() {
    var screen = Screen(
      entryRules {
        $0.minLength = 2
        $0.maxLength = 3
      })
    #expect(screen.model.boxes == 2)
    screen.type("12")
    #expect(screen.model.boxes == 3)
    screen.type("3")
    #expect(screen.model.boxes == 3)
    #expect(screen.model.cursor == nil)
  }

  @Test("Backspace moves the cursor back")
  func backspaceMovesCursor() {
    var screen = Screen()
    screen.type("123<")
    #expect(screen.model.filled == 2)
    #expect(screen.model.cursor == 2)
  }

  // MARK: - Masking

  @Test("Mask=fixed draws the same model for 1 and 5 digits typed", arguments: [nil, 6] as [Int?])
  func fixedMaskHidesLength(length: Int?) {
    let fixedMask = entryRules {
      $0.mask = .fixed
      $0.length = length
    }
    var one = Screen(fixedMask)
    one.type("1")
    var five = Screen(fixedMask)
    five.type("98765")
    #expect(one.model == five.model)
    #expect(one.model.filled == one.model.boxes)
    #expect(one.model.boxes == (length ?? 4))
    #expect(one.model.cursor == nil)
    #expect(one.model.digits == nil)
    #expect(ConsoleRenderer.frame(one.model) == ConsoleRenderer.frame(five.model))
  }

  @Test("Mask=fixed shows empty boxes while nothing is typed")
  func fixedMaskIdle() {
    let screen = Screen(entryRules { $0.mask = .fixed })
    #expect(screen.model.filled == 0)
    #expect(screen.model.boxes == 4)
  }

  @Test("Mask=fixed shows no digits even after the reveal key")
  func fixedMaskIgnoresReveal() {
    var screen = Screen(entryRules { $0.mask = .fixed })
    screen.type("12.")
    #expect(screen.model.digits == nil)
    #expect(screen.model.showsRevealToggle == false)
  }

  @Test("masked entries of different codes give identical frames")
  func maskedCodesIdentical() {
    var a = Screen()
    a.type("1234")
    var b = Screen()
    b.type("9070")
    #expect(a.model.digits == nil)
    #expect(a.model == b.model)
    let frame = ConsoleRenderer.frame(a.model)
    #expect(frame == ConsoleRenderer.frame(b.model))
  }

  @Test("Mask=digits shows the digits typed, leading zeros too")
  func digitsMask() {
    var screen = Screen(entryRules { $0.mask = .digits })
    screen.type("007")
    #expect(screen.model.digits == [0, 0, 7])
    #expect(screen.model.showsRevealToggle == false)
  }

  @Test("the reveal key shows the digits until RevealSec has passed")
  func revealShowsDigits() {
    var screen = Screen()
    screen.type("42.")
    #expect(screen.model.revealed)
    #expect(screen.model.digits == [4, 2])
    #expect(screen.model.showsRevealToggle)
    screen.wait(.seconds(3))
    #expect(screen.model.revealed == false)
    #expect(screen.model.digits == nil)
  }

  @Test("without reveal keys no reveal toggle is drawn")
  func noRevealKeys() {
    let screen = Screen(entryRules { $0.revealKeys = [] })
    #expect(screen.model.showsRevealToggle == false)
  }

  // MARK: - Phases

  @Test("a submitted code shows checking without boxes filled or a cursor")
  func checking() {
    var screen = Screen()
    screen.type("1234E")
    let model = screen.model
    #expect(model.phase == .checking)
    #expect(model.filled == 0)
    #expect(model.cursor == nil)
  }

  @Test("a result replaces the entry and hides any digits")
  func resultShown() {
    var screen = Screen(entryRules { $0.mask = .digits })
    screen.type("12")
    screen.presenter.showResult(.granted(message: "Welcome"), now: screen.now)
    let model = screen.model
    #expect(screen.presenter.hasResult)
    #expect(model.phase == .granted(message: "Welcome"))
    #expect(model.filled == 0)
    #expect(model.digits == nil)
    #expect(model.cursor == nil)
    #expect(model.revealed == false)
  }

  @Test("a result expires after three seconds, then the entry shows again")
  func resultExpires() {
    var screen = Screen()
    screen.type("1234E")
    _ = screen.machine.handle(.verdict(.denied), now: screen.now)
    screen.presenter.showResult(.denied(message: nil, attemptsLeft: 4), now: screen.now)
    #expect(
      screen.presenter.nextDeadline(machine: screen.machine, now: screen.now) == screen.now
        + .seconds(3))
    #expect(screen.presenter.expire(now: screen.now + .milliseconds(2999)) == false)
    #expect(screen.model.phase == .denied(message: nil, attemptsLeft: 4))
    #expect(screen.presenter.expire(now: screen.now + .seconds(3)) == true)
    #expect(screen.presenter.hasResult == false)
    #expect(screen.model.phase == .idle)
    #expect(
      screen.presenter.expire(now: screen.now + .seconds(4)) == false, "nothing left to expire")
  }

  @Test("a key press ends a shown result at once")
  func keyEndsResult() {
    var screen = Screen()
    screen.presenter.showResult(.unavailable, now: screen.now)
    screen.presenter.keyPressed()
    #expect(screen.presenter.hasResult == false)
    #expect(screen.model.phase == .idle)
  }

  // MARK: - Notices

  @Test(
    "feedback shows a notice under the boxes",
    arguments: [
      (EntryFeedback.tooShort, "Too short"), (.full, "Maximum length reached"),
      (.notAllowed, "Key not allowed"), (.burstRejected, "Input rejected"),
      (.busy, "Please wait"),
    ])
  func notices(feedback: EntryFeedback, text: String) {
    var screen = Screen()
    screen.presenter.showFeedback(feedback, now: screen.now)
    #expect(screen.model.notice == text)
  }

  @Test("locked feedback shows no notice: the countdown says it")
  func lockedFeedbackSilent() {
    var screen = Screen()
    screen.presenter.showFeedback(.locked, now: screen.now)
    #expect(screen.model.notice == nil)
    #expect(screen.presenter.nextDeadline(machine: screen.machine, now: screen.now) == nil)
  }

  @Test("a notice expires after two seconds")
  func noticeExpires() {
    var screen = Screen()
    screen.presenter.showFeedback(.tooShort, now: screen.now)
    #expect(
      screen.presenter.nextDeadline(machine: screen.machine, now: screen.now)
        == screen.now + .seconds(2))
    #expect(screen.presenter.expire(now: screen.now + .milliseconds(1999)) == false)
    #expect(screen.presenter.expire(now: screen.now + .seconds(2)) == true)
    #expect(screen.model.notice == nil)
  }

  @Test("a newer notice replaces the older one and its deadline")
  func newerNotice() {
    var screen = Screen()
    screen.presenter.showFeedback(.tooShort, now: screen.now)
    screen.presenter.showFeedback(.full, now: screen.now + .seconds(1))
    #expect(screen.model.notice == "Maximum length reached")
    #expect(screen.presenter.expire(now: screen.now + .seconds(2)) == false)
  }

  @Test("the next deadline is the earlier of result and notice")
  func earliestOfResultAndNotice() {
    var screen = Screen()
    screen.presenter.showResult(.noResponse, now: screen.now)
    screen.presenter.showFeedback(.busy, now: screen.now)
    #expect(
      screen.presenter.nextDeadline(machine: screen.machine, now: screen.now)
        == screen.now + .seconds(2))
  }

  @Test("nothing shown for a while means no deadline")
  func noDeadline() {
    var screen = Screen()
    screen.type("12")
    #expect(screen.presenter.nextDeadline(machine: screen.machine, now: screen.now) == nil)
    #expect(ScreenPresenter().nextDeadline(machine: nil, now: start) == nil)
  }

  // MARK: - Lockout countdown

  @Test(
    "a locked keypad counts down whole seconds, rounded up",
    arguments: [
      (0, 30), (1, 30), (500_000_000, 30), (999_999_999, 30), (1_000_000_000, 29),
      (28_999_999_999, 2), (29_000_000_000, 1), (29_999_999_999, 1),
    ] as [(Int64, Int)])
  func countdown(elapsed: Int64, seconds: Int) {
    let screen = Screen(state: LockoutState(level: 1, lockedUntil: start + .seconds(30)))
    let model = screen.presenter.model(
      machine: screen.machine, rules: screen.rules, display: screen.display,
      now: start + .nanoseconds(elapsed))
    #expect(model.phase == .locked(secondsLeft: seconds))
    #expect(model.cursor == nil)
  }

  @Test(
    "while locked the next deadline is the next change of the seconds shown",
    arguments: [
      (0, 1_000_000_000), (250_000_000, 1_000_000_000), (999_999_999, 1_000_000_000),
      (1_000_000_000, 2_000_000_000), (29_500_000_000, 30_000_000_000),
    ] as [(Int64, Int64)])
  func countdownDeadline(elapsed: Int64, deadline: Int64) {
    let screen = Screen(state: LockoutState(level: 1, lockedUntil: start + .seconds(30)))
    #expect(
      screen.presenter.nextDeadline(machine: screen.machine, now: start + .nanoseconds(elapsed))
        == start + .nanoseconds(deadline))
  }

  @Test("the countdown changes exactly at the deadline it asked for")
  func countdownTicksAtDeadline() throws {
    let screen = Screen(state: LockoutState(level: 1, lockedUntil: start + .milliseconds(2500)))
    var now = start
    var shown: [Int] = []
    while let next = screen.presenter.nextDeadline(machine: screen.machine, now: now) {
      let before = screen.presenter.model(
        machine: screen.machine, rules: screen.rules, display: screen.display,
        now: next - .nanoseconds(1))
      let after = screen.presenter.model(
        machine: screen.machine, rules: screen.rules, display: screen.display, now: next)
      #expect(before != after)
      guard case .locked(let seconds) = before.phase else { break }
      shown.append(seconds)
      now = next
      try #require(shown.count < 10)
    }
    #expect(shown == [3, 2, 1])
  }

  @Test("a result shown over a lock hides the countdown and its deadlines")
  func resultOverLock() {
    var screen = Screen(state: LockoutState(level: 1, lockedUntil: start + .seconds(30)))
    screen.presenter.showResult(.denied(message: nil, attemptsLeft: 0), now: start)
    #expect(screen.model.phase == .denied(message: nil, attemptsLeft: 0))
    #expect(
      screen.presenter.nextDeadline(machine: screen.machine, now: start) == start + .seconds(3))
    _ = screen.presenter.expire(now: start + .seconds(3))
    #expect(
      screen.presenter.model(
        machine: screen.machine, rules: screen.rules, display: screen.display,
        now: start + .seconds(3)
      ).phase == .locked(secondsLeft: 27))
  }

  @Test("a lock that has ended asks for no countdown deadline")
  func endedLock() {
    let screen = Screen(state: LockoutState(level: 1, lockedUntil: start + .seconds(5)))
    #expect(screen.presenter.nextDeadline(machine: screen.machine, now: start + .seconds(5)) == nil)
  }

  // MARK: - On-screen keypad

  @Test("the on-screen keypad is in the model only when configured")
  func onScreenKeypad() {
    var screen = Screen(display: display { $0.onScreenKeypad = true })
    screen.presenter.padCells = [3, 1, 4, 5, 9, 2, 6, 8, 7, 0]
    screen.presenter.pressedPadKey = .ok
    #expect(
      screen.model.keypad
        == OnScreenKeypadModel(digitCells: [3, 1, 4, 5, 9, 2, 6, 8, 7, 0], pressed: .ok))
    #expect(Screen().model.keypad == nil)
  }
}
