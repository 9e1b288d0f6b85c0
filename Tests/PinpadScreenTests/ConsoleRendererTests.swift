import PinpadCore
import PinpadScreen
import Testing

/// `text` without ANSI CSI sequences (`ESC [ params final`).
private func plain(_ text: String) -> String {
  var out = String.UnicodeScalarView()
  var scalars = text.unicodeScalars.makeIterator()
  while let scalar = scalars.next() {
    guard scalar == "\u{1B}" else {
      out.append(scalar)
      continue
    }
    guard scalars.next() == "[" else { continue }
    while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
  }
  return String(out)
}

/// The lines of a frame without escapes, trimmed, empty ones dropped.
private func lines(_ frame: String) -> [String] {
  plain(frame).split(separator: "\r\n").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
}

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  }
}

/// A model in `phase` with `filled` of `boxes` boxes filled.
private func model(
  _ phase: ScreenModel.Phase = .entering, boxes: Int = 4, filled: Int = 0,
  digits: [UInt8]? = nil, cursor: Int? = nil, edit: (inout ScreenModel) -> Void = { _ in }
) -> ScreenModel {
  var model = ScreenModel()
  model.phase = phase
  model.boxes = boxes
  model.filled = filled
  model.digits = digits
  model.cursor = cursor
  edit(&model)
  return model
}

/// A row of the phase table: the headline and detail lines drawn for `phase`.
struct PhaseTextCase: Sendable, CustomTestStringConvertible {
  var name: String
  var phase: ScreenModel.Phase
  var headline: String
  var detail: String?
  var testDescription: String { name }
}

@Suite("Console renderer")
struct ConsoleRendererTests {
  // MARK: - Boxes

  @Test(
    "boxes show stars for filled positions, the cursor and empty positions",
    arguments: [
      (0, 4, 0 as Int?, "[_] [ ] [ ] [ ]"),
      (2, 4, 2, "[*] [*] [_] [ ]"),
      (4, 4, nil, "[*] [*] [*] [*]"),
      (3, 4, nil, "[*] [*] [*] [ ]"),
      (0, 1, 0, "[_]"),
      (0, 4, nil, "[ ] [ ] [ ] [ ]"),
    ])
  func maskedBoxes(filled: Int, boxes: Int, cursor: Int?, text: String) {
    let m = model(boxes: boxes, filled: filled, cursor: cursor)
    #expect(ConsoleRenderer.boxes(m) == text)
  }

  @Test("revealed digits are shown in their boxes, leading zeros too")
  func revealedBoxes() {
    let m = model(boxes: 5, filled: 3, digits: [0, 0, 7], cursor: 3)
    #expect(ConsoleRenderer.boxes(m) == "[0] [0] [7] [_] [ ]")
  }

  @Test("a box past the digits given falls back to a star")
  func fewerDigitsThanFilled() {
    let m = model(boxes: 3, filled: 2, digits: [5], cursor: 2)
    #expect(ConsoleRenderer.boxes(m) == "[5] [*] [_]")
  }

  @Test("thirty-two boxes are drawn")
  func manyBoxes() {
    let m = model(boxes: 32, filled: 31, cursor: 31)
    let parts = ConsoleRenderer.boxes(m).split(separator: " ")
    #expect(parts.count == 32)
    #expect(parts.last == "[_]")
  }

  // MARK: - No digits when masked

  @Test(
    "a masked frame holds no digit outside the texts that carry numbers",
    arguments: [
      ScreenModel.Phase.idle, .entering, .checking, .granted(message: nil),
      .denied(message: nil, attemptsLeft: nil), .unavailable, .noResponse,
    ])
  func maskedFrameHasNoDigits(phase: ScreenModel.Phase) {
    let frame = ConsoleRenderer.frame(
      model(phase, boxes: 8, filled: 6, cursor: 6) {
        $0.showsRevealToggle = true
        $0.notice = "Too short"
      })
    let text = plain(frame)
    #expect(!text.contains { $0.isASCII && $0.isNumber }, "\(text)")
  }

  @Test("a masked denied frame shows only the attempts-left number")
  func deniedFrameDigits() {
    let frame = ConsoleRenderer.frame(
      model(.denied(message: nil, attemptsLeft: 4), filled: 4))
    let digits = plain(frame).filter { $0.isASCII && $0.isNumber }
    #expect(digits == "4")
  }

  @Test("Mask=digits frames show each digit")
  func digitsShownInFrame() {
    let frame = ConsoleRenderer.frame(model(boxes: 4, filled: 4, digits: [9, 0, 1, 2]))
    #expect(lines(frame).contains("[9] [0] [1] [2]"))
  }

  // MARK: - Frame layout

  @Test("a frame clears the screen, then shows the prompt above the boxes")
  func frameLayout() {
    let frame = ConsoleRenderer.frame(
      model(.entering, filled: 1, cursor: 1) { $0.prompt = "Code please" })
    #expect(frame.hasPrefix("\u{1B}[H\u{1B}[2J"))
    #expect(lines(frame) == ["Code please", "[*] [_] [ ] [ ]"])
  }

  @Test("every line ends with CR LF, for a terminal in raw mode")
  func crlfLineEnds() {
    let frame = ConsoleRenderer.frame(
      model(.denied(message: "No", attemptsLeft: 2), filled: 2) {
        $0.notice = "Too short"
        $0.keypad = OnScreenKeypadModel()
      })
    #expect(frame.hasSuffix("\r\n"))
    let bytes = Array(frame.utf8)
    for (i, byte) in bytes.enumerated() where byte == 0x0A {
      #expect(i > 0 && bytes[i - 1] == 0x0D)
    }
  }

  @Test("the reveal toggle says hidden or shown")
  func revealToggle() {
    let hidden = model(filled: 2, cursor: 2) { $0.showsRevealToggle = true }
    var shown = hidden
    shown.revealed = true
    shown.digits = [1, 2]
    #expect(lines(ConsoleRenderer.frame(hidden)).contains("[*] [*] [_] [ ]   (hidden)"))
    #expect(lines(ConsoleRenderer.frame(shown)).contains("[1] [2] [_] [ ]   (shown)"))
    let none = model(filled: 2, cursor: 2)
    #expect(!plain(ConsoleRenderer.frame(none)).contains("("))
  }

  @Test("a notice is shown under the boxes")
  func noticeShown() {
    let frame = ConsoleRenderer.frame(model(filled: 2) { $0.notice = "Key not allowed" })
    #expect(lines(frame).last == "Key not allowed")
  }

  @Test("card+pin: the presenter's frame asks for the PIN after a card, then the digits")
  func cardReadPrompt() {
    let presenter = ScreenPresenter()
    var machine = EntryMachine(rules: EntryConfig(), lockout: LockoutConfig())
    let at = Instant(nanoseconds: 0)
    _ = machine.handle(.key(KeyCode(2), value: 1), now: at)  // KEY_1
    _ = machine.handle(.tick, now: at + .seconds(1))
    let frame = ConsoleRenderer.frame(
      presenter.model(
        machine: machine, rules: EntryConfig(), display: DisplayConfig(), now: at + .seconds(1),
        awaitingPin: true))
    #expect(lines(frame).first == "Card read - enter PIN")
    #expect(lines(frame).contains("[*] [_] [ ] [ ]   (hidden)"))
    let before = ConsoleRenderer.frame(
      presenter.model(machine: nil, rules: EntryConfig(), display: DisplayConfig(), now: at))
    #expect(lines(before).first == "Enter PIN")
  }

  @Test("the present-card feedback is a notice under the boxes")
  func presentCardNotice() {
    var presenter = ScreenPresenter()
    let at = Instant(nanoseconds: 0)
    presenter.showFeedback(.presentCard, now: at)
    let frame = ConsoleRenderer.frame(
      presenter.model(machine: nil, rules: EntryConfig(), display: DisplayConfig(), now: at))
    #expect(lines(frame).last == "Present card first")
    #expect(lines(frame).contains("[_] [ ] [ ] [ ]   (hidden)"))
  }

  // MARK: - Phases

  @Test(
    "each phase shows its headline and detail",
    arguments: [
      PhaseTextCase(name: "checking", phase: .checking, headline: "Checking\u{2026}"),
      PhaseTextCase(
        name: "granted", phase: .granted(message: nil), headline: "Access granted",
        detail: "Welcome"),
      PhaseTextCase(
        name: "granted with a message", phase: .granted(message: "Welcome, Ann"),
        headline: "Access granted", detail: "Welcome, Ann"),
      PhaseTextCase(
        name: "denied", phase: .denied(message: nil, attemptsLeft: nil),
        headline: "Denied", detail: "Please try again"),
      PhaseTextCase(
        name: "denied with attempts", phase: .denied(message: nil, attemptsLeft: 3),
        headline: "Denied", detail: "3 attempts left"),
      PhaseTextCase(
        name: "denied with one attempt", phase: .denied(message: nil, attemptsLeft: 1),
        headline: "Denied", detail: "1 attempt left"),
      PhaseTextCase(
        name: "denied with no attempts", phase: .denied(message: nil, attemptsLeft: 0),
        headline: "Denied", detail: "0 attempts left"),
      PhaseTextCase(
        name: "denied with a message", phase: .denied(message: "Card expired", attemptsLeft: nil),
        headline: "Denied", detail: "Card expired"),
      PhaseTextCase(
        name: "denied with a message and attempts",
        phase: .denied(message: "Wrong code", attemptsLeft: 2), headline: "Denied",
        detail: "Wrong code - 2 attempts left"),
      PhaseTextCase(
        name: "locked", phase: .locked(secondsLeft: 27), headline: "Locked: 27 s",
        detail: "Too many attempts"),
      PhaseTextCase(
        name: "unavailable", phase: .unavailable, headline: "Unavailable",
        detail: "The service is not answering - Please try again later"),
      PhaseTextCase(
        name: "no response", phase: .noResponse, headline: "No response",
        detail: "The check timed out - Please try again"),
    ])
  func phaseTexts(_ row: PhaseTextCase) {
    let frame = ConsoleRenderer.frame(model(row.phase))
    let expected = ["Enter PIN", "[ ] [ ] [ ] [ ]", row.headline] + [row.detail].compactMap { $0 }
    #expect(lines(frame) == expected)
  }

  @Test(
    "idle and entering frames have no status line", arguments: [ScreenModel.Phase.idle, .entering])
  func noStatusWhileTyping(phase: ScreenModel.Phase) {
    #expect(
      lines(ConsoleRenderer.frame(model(phase, cursor: 0))) == ["Enter PIN", "[_] [ ] [ ] [ ]"])
    #expect(ConsoleRenderer.texts(for: phase) == ("", nil))
  }

  @Test(
    "granted is green; refusals are red",
    arguments: [
      (ScreenModel.Phase.granted(message: nil), "\u{1B}[1;32m"),
      (.denied(message: nil, attemptsLeft: nil), "\u{1B}[1;31m"),
      (.locked(secondsLeft: 1), "\u{1B}[1;31m"), (.unavailable, "\u{1B}[1;31m"),
      (.noResponse, "\u{1B}[1;31m"), (.checking, "\u{1B}[1m"),
    ])
  func colours(phase: ScreenModel.Phase, colour: String) {
    let (headline, _) = ConsoleRenderer.texts(for: phase)
    #expect(ConsoleRenderer.frame(model(phase)).contains(colour + headline + "\u{1B}[0m"))
  }

  // MARK: - On-screen keypad

  @Test("the on-screen keypad is drawn as four rows like a phone")
  func phoneKeypad() {
    let frame = ConsoleRenderer.frame(model { $0.keypad = OnScreenKeypadModel() })
    #expect(lines(frame).suffix(4) == ["1   2   3", "4   5   6", "7   8   9", "<-   0  OK"])
  }

  @Test("a scrambled keypad draws its digits in the cells' order")
  func scrambledKeypad() {
    let cells: [UInt8] = [7, 3, 0, 9, 1, 5, 2, 8, 4, 6]
    let frame = ConsoleRenderer.frame(model { $0.keypad = OnScreenKeypadModel(digitCells: cells) })
    #expect(lines(frame).suffix(4) == ["7   3   0", "9   1   5", "2   8   4", "<-   6  OK"])
  }

  @Test(
    "the pressed key is drawn in reverse video",
    arguments: [(PadKey.digit(5), " 5 "), (.backspace, "<- "), (.ok, "OK "), (.digit(0), " 0 ")])
  func pressedKey(key: PadKey, label: String) {
    let frame = ConsoleRenderer.frame(
      model { $0.keypad = OnScreenKeypadModel(pressed: key) })
    #expect(frame.contains("\u{1B}[7m\(label)\u{1B}[0m"))
    #expect(frame.components(separatedBy: "\u{1B}[7m").count == 2, "exactly one key pressed")
  }

  @Test("no keypad is drawn when the model has none")
  func noKeypad() {
    let frame = ConsoleRenderer.frame(model())
    #expect(!plain(frame).contains("OK"))
    #expect(!plain(frame).contains("<-"))
  }
}

extension String {
  /// `components(separatedBy:)` without Foundation.
  fileprivate func components(separatedBy separator: String) -> [Substring] {
    split(separator: separator, omittingEmptySubsequences: false)
  }
}
