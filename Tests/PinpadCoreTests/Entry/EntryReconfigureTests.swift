import PinpadCore
import Testing

@Suite("Entry reload")
struct EntryReconfigureTests {
  // The rules are built outside the @Test attributes: Swift 6.0.3 (Debian 13's
  // swiftlang) crashes on closures inside a macro's arguments.
  static let stillValid = [
    EntryConfig.testing { $0.maxLength = 6 },
    EntryConfig.testing { $0.maxLength = 3 },
    EntryConfig.testing { $0.minLength = 6 },
    EntryConfig.testing { $0.length = 4 },
    EntryConfig.testing { $0.allowedDigits = digitSet("123") },
    EntryConfig.testing { $0.mask = .digits },
  ]
  static let noLongerValid = [
    EntryConfig.testing { $0.maxLength = 2 },
    EntryConfig.testing { $0.length = 2 },
    EntryConfig.testing { $0.length = 3 },
    EntryConfig.testing { $0.allowedDigits = digitSet("12") },
  ]

  @Test("an entry still valid under the new rules is kept", arguments: stillValid)
  func keeps(_ rules: EntryConfig) {
    var script = EntryScript()
    script.run("1 2 3")
    #expect(script.reconfigure(rules) == "screen")
    #expect(script.machine.length == 3)
    #expect(script.machine.phase == .entering)
    #expect(script.machine.rules == rules)
  }

  @Test("an entry no longer valid is wiped", arguments: noLongerValid)
  func wipes(_ rules: EntryConfig) {
    var script = EntryScript()
    script.run("1 2 3")
    #expect(script.reconfigure(rules) == "cleared:0 screen")
    #expect(script.machine.length == 0)
    #expect(script.machine.phase == .idle)
    #expect(script.machine.nextDeadline == nil)
  }

  @Test("a kept entry goes on under the new rules")
  func keptEntryUsesNewRules() {
    var script = EntryScript()
    script.run("1 2 3")
    _ = script.reconfigure(.testing { $0.length = 4 })
    #expect(script.run("4") == "submit:1234 screen")
  }

  @Test("reloading the same rules changes nothing")
  func sameRules() {
    var script = EntryScript()
    script.run("1 2")
    #expect(script.reconfigure(.testing()) == "")
    #expect(script.machine.length == 2)
  }

  @Test("a reveal ends when the new rules show digits anyway")
  func revealEndsUnderMaskDigits() {
    var script = EntryScript()
    script.run("1 2 KPDOT")
    _ = script.reconfigure(.testing { $0.mask = .digits })
    #expect(!script.machine.isRevealed)
    #expect(script.machine.visibleDigits() == [1, 2])
  }

  @Test("a shorter inter-key timeout applies at once")
  func shorterTimeout() {
    var script = EntryScript()
    script.run("@0 1 @3")
    #expect(script.reconfigure(.testing { $0.interKeyTimeout = .seconds(2) }) == "timeout:0 screen")
  }

  @Test("a lockout in force survives a reload, and the count keeps its history")
  func lockoutSurvives() {
    var script = EntryScript()
    script.run("@0 1 2 3 4 ENTER denied 1 2 3 4 ENTER denied 1 2 3 4 ENTER denied")
    let state = script.machine.lockoutState
    _ = script.reconfigure(.testing { $0.maxLength = 6 })
    #expect(script.machine.lockoutState == state)
    #expect(script.machine.phase == .locked(until: script.at("30")))
  }

  @Test("a lower LockoutMaxSec shortens a lock in force")
  func lowerMaxShortensLock() {
    var script = EntryScript()
    script.run("@0 1 2 3 4 ENTER denied 1 2 3 4 ENTER denied 1 2 3 4 ENTER denied @1")
    _ = script.reconfigure(.testing(), lockout: .testing(lockoutMax: .seconds(10)))
    #expect(script.machine.nextDeadline == script.at("11"))
  }

  @Test("presses pending at a reload are settled under the old rules first")
  func pendingSettlesUnderOldRules() {
    var script = EntryScript(.testing { $0.burstInterval = .milliseconds(15) })
    script.run("@0 1 2 3")
    #expect(
      script.reconfigure(.testing { $0.allowedDigits = digitSet("4") })
        == "started:1 changed:2 changed:3 cleared:0 screen")
    #expect(script.machine.length == 0)
  }
}

@Suite("Entry secrecy")
struct EntrySecrecyTests {
  @Test("description, debugDescription and dump show phase and length, never a digit")
  func noDigitsInDescriptions() {
    var script = EntryScript()
    script.run("9 8 7 KPDOT")
    let machine = script.machine
    var dumped = ""
    dump(machine, to: &dumped)
    for text in [
      String(describing: machine), String(reflecting: machine), dumped, "\(machine)",
    ] {
      #expect(text.contains("entering"))
      #expect(text.contains("3"))
      for digit in ["9", "8", "7"] { #expect(!text.contains(digit), "\(text)") }
    }
  }

  @Test("a submitted code is handed over in a buffer of its own")
  func submitHandsOverBuffer() {
    var machine = EntryMachine(rules: .testing { $0.length = 4 }, lockout: .testing())
    var submitted: [SecretDigits] = []
    for d: UInt8 in [5, 6, 7, 8] {
      for action in machine.handle(.key(.keypad(d), value: 1), now: .zero) {
        if case .submit(let digits) = action { submitted.append(digits) }
      }
    }
    #expect(submitted.count == 1)
    #expect(string(submitted[0]) == "5678")
    #expect(machine.length == 0)
    // The machine kept nothing: a new entry starts from scratch.
    _ = machine.handle(.verdict(.granted), now: .zero)
    _ = machine.handle(.key(.keypad(1), value: 1), now: .zero)
    #expect(string(submitted[0]) == "5678")
    #expect(machine.length == 1)
    submitted[0].wipe()
    #expect(submitted[0].isEmpty)
  }
}
