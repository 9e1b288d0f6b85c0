import PinpadCore
import Testing

@Suite("Entry timeouts and reveal")
struct EntryTimeTests {
  // MARK: Timeouts

  @Test("a partial entry survives until just before InterKeyTimeoutSec")
  func interKeyJustBefore() {
    var script = EntryScript()
    script.run("@0 KP1 @4.999999999 tick")
    #expect(script.machine.length == 1)
    #expect(script.machine.phase == .entering)
  }

  @Test("a partial entry is wiped exactly InterKeyTimeoutSec after the last key")
  func interKeyExactly() {
    var script = EntryScript()
    script.run("@0 KP1")
    #expect(script.machine.nextDeadline == script.at("5"))
    #expect(script.run("@5 tick") == "timeout:0 screen")
    #expect(script.machine.length == 0)
    #expect(script.machine.phase == .idle)
    #expect(script.machine.nextDeadline == nil)
  }

  @Test("every accepted key restarts the inter-key timeout")
  func interKeyRestarts() {
    var script = EntryScript()
    script.run("@0 1 @4 2 @8 BACKSPACE @12 ENTER")
    #expect(script.run("@16.999 tick") == "")
    #expect(script.run("@17 tick") == "timeout:0 screen")
  }

  @Test("a rejected key does not restart the inter-key timeout")
  func rejectedKeyDoesNotRestart() {
    var script = EntryScript()
    script.run("@0 1 @4 KEY_A")
    #expect(script.run("@5 tick") == "timeout:0 screen")
  }

  @Test("TotalTimeoutSec wipes an entry that keeps getting keys")
  func totalTimeout() {
    var script = EntryScript(.testing { $0.maxLength = 32 })
    for second in stride(from: 0, through: 28, by: 4) { script.run("@\(second) 1") }
    #expect(script.machine.length == 8)
    #expect(script.machine.nextDeadline == script.at("30"))
    #expect(script.run("@29.999999999 tick") == "")
    #expect(script.run("@30 tick") == "timeout:0 screen")
    #expect(script.machine.length == 0)
  }

  @Test("the total timeout counts from the first digit of the current entry")
  func totalTimeoutRestartsWithNewEntry() {
    var script = EntryScript()
    script.run("@0 1 @3 ESC @10 2")
    #expect(script.machine.nextDeadline == script.at("15"))
    script.run("@14 3 @18 4 @22 5 @26 6 @30 7 @34 8 @38 9")
    #expect(script.machine.nextDeadline == script.at("40"))
    #expect(script.run("@39.9 tick") == "")
    #expect(script.run("@40 tick") == "timeout:0 screen")
  }

  @Test("a key after a missed tick first times the old entry out, then starts anew")
  func lateKeyAfterTimeout() {
    var script = EntryScript()
    script.run("@0 1 2 3")
    #expect(script.run("@5 4") == "timeout:0 started:1 screen")
    #expect(script.machine.length == 1)
  }

  @Test("Backspace to empty cancels the timeouts")
  func backspaceCancelsTimeouts() {
    var script = EntryScript()
    script.run("@0 1 BACKSPACE")
    #expect(script.machine.nextDeadline == nil)
    #expect(script.run("@60 tick") == "")
  }

  @Test("no deadline while idle", arguments: ["", "1 ESC", "1 2 3 4 ENTER", "1 dropped"])
  func idleHasNoDeadline(_ keys: String) {
    var script = EntryScript()
    script.run(keys)
    #expect(script.machine.nextDeadline == nil)
  }

  @Test("a zero timeout is off")
  func zeroTimeoutsAreOff() {
    var script = EntryScript(
      .testing {
        $0.interKeyTimeout = .zero
        $0.totalTimeout = .zero
      })
    script.run("@0 1")
    #expect(script.machine.nextDeadline == nil)
    #expect(script.run("@1000 tick") == "")
    #expect(script.machine.length == 1)
  }

  // MARK: Reveal

  @Test("the reveal key shows the digits, and again hides them")
  func revealToggles() {
    var script = EntryScript()
    script.run("KP1 KP2")
    #expect(script.machine.visibleDigits() == nil)
    #expect(script.run("KPDOT") == "screen")
    #expect(script.machine.isRevealed)
    #expect(script.machine.visibleDigits() == [1, 2])
    #expect(script.run("KPDOT") == "screen")
    #expect(!script.machine.isRevealed)
    #expect(script.machine.visibleDigits() == nil)
    #expect(script.machine.length == 2)
  }

  @Test("the reveal key on an empty entry does nothing")
  func revealEmpty() {
    var script = EntryScript()
    #expect(script.run("KPDOT") == "")
    #expect(!script.machine.isRevealed)
    #expect(script.machine.phase == .idle)
  }

  @Test("a revealed entry re-masks after RevealSec")
  func revealExpires() {
    var script = EntryScript()
    script.run("@0 1 2 @1 KPDOT")
    #expect(script.machine.nextDeadline == script.at("4"))
    #expect(script.run("@3.999 tick") == "")
    #expect(script.machine.isRevealed)
    #expect(script.run("@4 tick") == "screen")
    #expect(!script.machine.isRevealed)
    #expect(script.machine.length == 2)
    #expect(script.machine.nextDeadline == script.at("6"))
  }

  @Test(
    "a revealed entry re-masks at the next key of any kind",
    arguments: [
      ("3", "changed:3 screen", 3),
      ("BACKSPACE", "deleted:1 screen", 1),
      ("KEY_A", "rejected:2 !notAllowed screen", 2),
      ("ENTER", "!tooShort screen", 2),
    ])
  func revealEndsAtNextKey(_ next: String, _ then: String, _ length: Int) {
    var script = EntryScript()
    script.run("1 2 KPDOT")
    #expect(script.run(next) == then)
    #expect(!script.machine.isRevealed)
    #expect(script.machine.visibleDigits() == nil)
    #expect(script.machine.length == length)
  }

  @Test("NumLock, repeats and releases do not re-mask")
  func revealSurvivesNonPresses() {
    var script = EntryScript()
    script.run("1 2 KPDOT")
    #expect(script.run("NUMLOCK KP3:0 KP2:2") == "")
    #expect(script.machine.isRevealed)
  }

  @Test("Mask=digits always shows the digits and ignores the reveal key")
  func maskDigits() {
    var script = EntryScript(.testing { $0.mask = .digits })
    #expect(script.machine.visibleDigits() == [])
    script.run("4 KP2")
    #expect(script.machine.visibleDigits() == [4, 2])
    #expect(script.run("KPDOT") == "")
    #expect(!script.machine.isRevealed)
    #expect(script.machine.visibleDigits() == [4, 2])
  }

  @Test("Mask=fixed hides the digits until revealed")
  func maskFixedReveals() {
    var script = EntryScript(.testing { $0.mask = .fixed })
    script.run("4 2")
    #expect(script.machine.visibleDigits() == nil)
    script.run("KPDOT")
    #expect(script.machine.visibleDigits() == [4, 2])
  }

  @Test("the reveal key counts as a key for the inter-key timeout")
  func revealRestartsInterKey() {
    var script = EntryScript()
    script.run("@0 1 @4 KPDOT")
    #expect(script.run("@7 tick") == "screen")
    #expect(script.run("@8.9 tick") == "")
    #expect(script.run("@9 tick") == "timeout:0 screen")
  }

  @Test("a timeout ends a reveal with the entry")
  func timeoutEndsReveal() {
    var script = EntryScript(.testing { $0.reveal = .seconds(60) })
    script.run("@0 1 KPDOT")
    #expect(script.run("@5 tick") == "timeout:0 screen")
    #expect(!script.machine.isRevealed)
    #expect(script.machine.visibleDigits() == nil)
  }
}
