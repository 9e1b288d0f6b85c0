import PinpadCore
import Testing

/// The inputs a keypad's card reader brings to its entry (pinpadd(8), CARD READERS).
@Suite("Entry and cards")
struct EntryCardTests {
  @Test("a card alone: an empty submit, the keypad checks, and a denial counts")
  func cardSubmitted() {
    var script = EntryScript()
    #expect(script.run("cardsubmitted") == "submit: screen")
    #expect(script.machine.phase == .checking)
    #expect(script.run("5") == "!busy")
    script.run("denied")
    #expect(script.machine.lockoutState.failures == 1)
  }

  @Test("a card during a typed PIN wipes it (cleared) before its submit")
  func cardWipesPartialPin() {
    var script = EntryScript()
    script.run("1 2")
    #expect(script.run("cardsubmitted") == "cleared:0 submit: screen")
    #expect(script.machine.length == 0)
  }

  @Test("a card on a locked or checking keypad is refused with the digit's feedback")
  func cardRefused() {
    var script = EntryScript()
    script.run("1 2 3 4 ENTER")
    #expect(script.run("cardsubmitted") == "!busy")
    var locked = EntryScript()
    for _ in 0..<3 { locked.run("1 2 3 4 ENTER denied") }
    #expect(locked.run("cardsubmitted") == "!locked rejected:0")
  }

  @Test("clear wipes a partial entry; timedOut wipes it with a timeout, also when idle")
  func clearAndTimedOut() {
    var script = EntryScript()
    #expect(script.run("clear") == "")
    script.run("1 2")
    #expect(script.run("clear") == "cleared:0 screen")
    script.run("3")
    #expect(script.run("timedout") == "timeout:0 screen")
    #expect(script.run("timedout") == "timeout:0")
    script.run("1 2 3 4 ENTER")
    #expect(script.run("timedout") == "", "a code being checked is not an entry")
  }
}
