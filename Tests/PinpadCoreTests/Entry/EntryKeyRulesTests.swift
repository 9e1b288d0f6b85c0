import PinpadCore
import Testing

/// One row of a key-rule table: after `given`, the keys in `when` give `then`.
struct KeyRuleCase: Sendable, CustomTestStringConvertible {
  var name: String
  var rules: EntryConfig = .testing()
  var given = ""
  var when: String
  var then: String
  /// The entry's length afterwards.
  var length: Int
  var phase: EntryPhase? = nil
  var testDescription: String { name }
}

private let fixed4 = EntryConfig.testing { $0.length = 4 }
private let only1234 = EntryConfig.testing { $0.allowedDigits = digitSet("1234") }
private let plusSubmits = EntryConfig.testing { $0.submitKeys = [key("KPPLUS")] }

private let keyRuleCases: [KeyRuleCase] = [
  // Digits
  .init(
    name: "first digit starts an entry", when: "KP1", then: "started:1 screen", length: 1,
    phase: .entering),
  .init(
    name: "later digits change it", given: "KP1", when: "KP2", then: "changed:2 screen",
    length: 2),
  .init(
    name: "main-row and keypad digits mix", given: "KP1 2", when: "KP3",
    then: "changed:3 screen", length: 3),
  // Variable length
  .init(
    name: "a digit beyond MaxLength is ignored with feedback", given: "1 2 3 4 5 6 7 8",
    when: "9", then: "!full", length: 8),
  .init(
    name: "SubmitKey at MinLength submits", given: "1 2 3 4", when: "ENTER",
    then: "submit:1234 screen", length: 0, phase: .checking),
  .init(
    name: "SubmitKey at MaxLength submits", given: "1 2 3 4 5 6 7 8", when: "ENTER",
    then: "submit:12345678 screen", length: 0, phase: .checking),
  .init(
    name: "KEY_KPENTER submits too", given: "0 0 0 7", when: "KPENTER",
    then: "submit:0007 screen", length: 0, phase: .checking),
  .init(
    name: "SubmitKey below MinLength is too short and keeps the entry", given: "1 2 3",
    when: "ENTER", then: "!tooShort", length: 3, phase: .entering),
  .init(
    name: "SubmitKey on an empty entry does nothing", when: "ENTER", then: "", length: 0,
    phase: .idle),
  .init(
    name: "MinLength and MaxLength are configurable",
    rules: .testing {
      $0.minLength = 2
      $0.maxLength = 3
    }, given: "5 6 7", when: "8 ENTER", then: "!full submit:567 screen", length: 0),
  // Fixed length
  .init(
    name: "fixed length submits the moment the last digit arrives", rules: fixed4,
    given: "1 2 3", when: "4", then: "submit:1234 screen", length: 0, phase: .checking),
  .init(
    name: "fixed length 1 submits the first digit", rules: .testing { $0.length = 1 },
    when: "KP7", then: "submit:7 screen", length: 0, phase: .checking),
  .init(
    name: "fixed length 32 holds 31 digits before submitting",
    rules: .testing { $0.length = 32 }, given: String(repeating: "9 ", count: 31),
    when: "ENTER", then: "!tooShort", length: 31),
  .init(
    name: "fixed length: SubmitKey on a partial entry is too short", rules: fixed4,
    given: "1 2", when: "ENTER", then: "!tooShort", length: 2, phase: .entering),
  .init(
    name: "fixed length: SubmitKey on an empty entry does nothing", rules: fixed4,
    when: "ENTER", then: "", length: 0, phase: .idle),
  .init(
    name: "fixed length ignores MinLength and MaxLength",
    rules: .testing {
      $0.length = 10
      $0.maxLength = 4
    }, given: "1 2 3 4 5 6 7 8 9", when: "0", then: "submit:1234567890 screen", length: 0),
  // Backspace and Clear
  .init(
    name: "Backspace removes the last digit", given: "1 2 3", when: "BACKSPACE",
    then: "deleted:2 screen", length: 2, phase: .entering),
  .init(
    name: "Backspace of the only digit returns to idle", given: "1", when: "BACKSPACE",
    then: "deleted:0 screen", length: 0, phase: .idle),
  .init(
    name: "Backspace on an empty entry does nothing", when: "BACKSPACE", then: "",
    length: 0, phase: .idle),
  .init(
    name: "digits after Backspace replace the removed one", given: "1 2 BACKSPACE 5 6 7",
    when: "ENTER", then: "submit:1567 screen", length: 0),
  .init(
    name: "Esc clears", given: "1 2", when: "ESC", then: "cleared:0 screen", length: 0,
    phase: .idle),
  .init(
    name: "KP* clears", given: "1 2 3 4 5", when: "KPASTERISK", then: "cleared:0 screen",
    length: 0, phase: .idle),
  .init(
    name: "Clear on an empty entry does nothing", when: "ESC", then: "", length: 0,
    phase: .idle),
  // Disallowed keys
  .init(
    name: "a letter is rejected and changes nothing", given: "1 2", when: "A",
    then: "rejected:2 !notAllowed", length: 2, phase: .entering),
  .init(
    name: "a letter while idle is rejected with length 0", when: "KEY_A",
    then: "rejected:0 !notAllowed", length: 0, phase: .idle),
  .init(
    name: "AllowedDigits=1234 rejects 5", rules: only1234, when: "5",
    then: "rejected:0 !notAllowed", length: 0, phase: .idle),
  .init(
    name: "AllowedDigits=1234 rejects KP9 in an entry", rules: only1234, given: "1 2",
    when: "KP9", then: "rejected:2 !notAllowed", length: 2),
  .init(
    name: "AllowedDigits=1234 accepts its digits", rules: only1234, given: "4 3 2",
    when: "KP1 ENTER", then: "changed:4 screen submit:4321 screen", length: 0),
  .init(
    name: "custom SubmitKeys replace Enter", rules: plusSubmits, given: "1 2 3 4",
    when: "ENTER", then: "rejected:4 !notAllowed", length: 4),
  .init(
    name: "custom SubmitKeys submit", rules: plusSubmits, given: "1 2 3 4",
    when: "KPPLUS", then: "submit:1234 screen", length: 0),
  // Presses only
  .init(
    name: "autorepeat is ignored", given: "KP1", when: "KP1:2 KP1:2 KP1:2", then: "",
    length: 1),
  .init(
    name: "a release alone is ignored", given: "KP1", when: "KP2:0 ENTER:0", then: "",
    length: 1),
  .init(
    name: "a NumLock press is ignored", given: "KP1", when: "NUMLOCK", then: "",
    length: 1),
  .init(
    name: "NumLock around a key changes nothing", given: "NUMLOCK KP1 NUMLOCK",
    when: "NUMLOCK:1 NUMLOCK:0 KP2 NUMLOCK:1 NUMLOCK:0", then: "changed:2 screen",
    length: 2),
]

@Suite("Entry keys")
struct EntryKeyRulesTests {
  @Test("key rules", arguments: keyRuleCases)
  func keyRule(_ row: KeyRuleCase) {
    var script = EntryScript(row.rules)
    script.run(row.given)
    #expect(script.run(row.when) == row.then)
    #expect(script.machine.length == row.length)
    if let phase = row.phase { #expect(script.machine.phase == phase) }
  }

  @Test("KEY_n and KEY_KPn are the same digit n", arguments: 0...9)
  func digitKeysAgree(_ n: Int) {
    let d = UInt8(n)
    var main = EntryScript()
    var pad = EntryScript()
    for _ in 0..<4 {
      _ = main.machine.handle(.key(.mainRow(d), value: 1), now: main.now)
      _ = pad.machine.handle(.key(.keypad(d), value: 1), now: pad.now)
    }
    main.run("ENTER")
    pad.run("KPENTER")
    let code = String(repeating: String(n), count: 4)
    #expect(main.codes == [code])
    #expect(pad.codes == [code])
  }

  @Test("every key wrapped in NumLock presses types the same code")
  func numLockWrapping() {
    var plain = EntryScript()
    var wrapped = EntryScript()
    plain.run("KP1 KP2 KP3 KP4 KPENTER")
    wrapped.run(
      "NUMLOCK KP1 NUMLOCK NUMLOCK KP2 NUMLOCK NUMLOCK KP3 NUMLOCK NUMLOCK KP4 NUMLOCK KPENTER")
    #expect(wrapped.codes == ["1234"])
    #expect(wrapped.log == plain.log)
  }

  @Test("a submitted code keeps its leading zeros")
  func leadingZeros() {
    var script = EntryScript(.testing { $0.length = 6 })
    script.run("0 0 KP0 1 0 0")
    #expect(script.codes == ["000100"])
  }

  @Test("the entry is empty after a submit, a clear and a Backspace to zero")
  func emptyAfterEnd() {
    var script = EntryScript()
    script.run("1 2 3 4 ENTER")
    #expect(script.machine.length == 0)
    #expect(script.machine.visibleDigits() == nil)
    script.run("granted 5 6 ESC")
    #expect(script.machine.length == 0)
    script.run("7 BACKSPACE")
    #expect(script.machine.length == 0)
    #expect(script.machine.nextDeadline == nil)
  }
}
