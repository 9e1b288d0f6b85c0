import PinpadCore
import PinpadScreen
import Testing

/// The key-hint line of the console when keys are typed on its terminal, and where the
/// console frame puts it and the log's status line (issue 14).
@Suite("Terminal hint")
struct TerminalHintTests {
  @Test("the defaults name every key a terminal has for them")
  func defaults() {
    #expect(
      TerminalHint.line(EntryConfig())
        == "digits then Enter, Backspace deletes, Esc/* clears, . reveals, Ctrl-C quits")
  }

  @Test("a fixed length needs no Enter")
  func fixedLength() {
    var rules = EntryConfig()
    rules.length = 4
    #expect(TerminalHint.line(rules).hasPrefix("digits fill the boxes, "))
  }

  @Test("keys the rules take away are not offered")
  func onlyConfiguredKeys() {
    var rules = EntryConfig()
    rules.backspaceKeys = []
    rules.clearKeys = [.kpAsterisk]
    rules.revealKeys = []
    #expect(TerminalHint.line(rules) == "digits then Enter, * clears, Ctrl-C quits")
    rules.mask = .digits
    rules.revealKeys = [.kpDot]
    #expect(!TerminalHint.line(rules).contains("reveals"), "nothing to reveal under Mask=digits")
    rules.submitKeys = [.kpEnter]
    #expect(TerminalHint.line(rules).hasPrefix("digits (Enter does not submit here)"))
  }

  @Test("the hint never holds a digit, whatever the lengths")
  func noDigits() {
    for length in [nil, 1, 4, 8, 32] as [Int?] {
      var rules = EntryConfig()
      rules.length = length
      rules.minLength = 1
      rules.maxLength = 32
      let line = TerminalHint.line(rules)
      #expect(!line.contains { $0.isNumber }, "\(line)")
    }
  }

  @Test("hint and status lines come last, dim, below the boxes and the result")
  func frameOrder() {
    var model = ScreenModel()
    model.phase = .denied(message: nil, attemptsLeft: 2)
    let frame = ConsoleRenderer.frame(model, hint: "HINT", status: "STATUS")
    let boxes = frame.firstRange(of: "[_]")!.lowerBound
    let denied = frame.firstRange(of: "Denied")!.lowerBound
    let hint = frame.firstRange(of: "  " + ConsoleRenderer.dim + "HINT")!.lowerBound
    let status = frame.firstRange(of: "  " + ConsoleRenderer.dim + "STATUS")!.lowerBound
    #expect(boxes < denied && denied < hint && hint < status)
    #expect(ConsoleRenderer.frame(model) == ConsoleRenderer.frame(model, hint: nil, status: nil))
    #expect(!ConsoleRenderer.frame(model).contains(ConsoleRenderer.dim))
  }

  @Test("the status line loses control characters and is cut to the width")
  func statusText() {
    #expect(ConsoleRenderer.statusText("a\u{1B}[2Jb\u{9B}c\td", columns: 80) == "a[2Jbc d")
    let long = String(repeating: "x", count: 200)
    let cut = ConsoleRenderer.statusText(long, columns: 40)
    #expect(cut.count == 37)
    #expect(cut.hasSuffix("…"))
    #expect(ConsoleRenderer.statusText("short", columns: 40) == "short")
  }
}
