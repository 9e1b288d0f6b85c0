import PinpadControlCore
import PinpadCore
import Testing

/// `DecisionCore.run`, both steps with their effects carried out, as `serve`, its fleet
/// controller and a door deciding from its replica use it.
@Suite struct DecisionCoreRunTests {
  /// Runs `code` on `fixture`'s core; the effects performed, in order.
  static func run(
    _ fixture: CoreFixture, _ code: String, recorded: DecisionCore.Recorded = .kept,
    divert: (Decision) -> Bool = { _ in false }
  ) -> (decision: Decision?, effects: [DecisionCore.Effect], wiped: Bool) {
    var bytes = Array(code.utf8)
    var effects: [DecisionCore.Effect] = []
    let decision = bytes.withUnsafeMutableBufferPointer { buffer in
      fixture.core.run(
        Attempt(id: "a1", keypad: "door", code: buffer), people: fixture.people, divert: divert
      ) { effect in
        effects.append(effect)
        if case .record = effect { return recorded }
        return nil
      }
    }
    return (decision, effects, bytes.allSatisfy { $0 == 0 })
  }

  @Test func theDecisionIsRecordedBeforeItIsReturnedAndTheCodeZeroed() {
    let outcome = Self.run(CoreFixture(), "2222")
    #expect(outcome.decision == .grant("bob"))
    guard case .record(let record) = outcome.effects.first else {
      Issue.record("not recorded: \(outcome.effects)")
      return
    }
    #expect(record.decision == .grant("bob"))
    #expect(outcome.wiped)
  }

  @Test func whatRecordingGaveIsTheVerdict() {
    #expect(
      Self.run(CoreFixture(), "2222", recorded: .failed).decision
        == .deny(.unavailable, person: "bob"))
  }

  @Test func aDivertedDecisionIsNeitherRecordedNorCountedByTheLockout() {
    var rules = LockoutConfig()
    rules.maxFailures = 1
    let fixture = CoreFixture(rules: rules)
    fixture.people.spendsUses = false
    var seen: [Decision] = []
    let outcome = Self.run(fixture, "3333") { decision in
      seen.append(decision)
      return true
    }
    #expect(outcome.decision == nil)
    #expect(seen == [.deny(.unavailable, person: "guest")])
    #expect(outcome.effects.isEmpty)
    #expect(outcome.wiped)
    // With MaxFailures=1 a counted denial would lock the keypad: the next code is checked.
    #expect(Self.run(fixture, "2222").decision == .grant("bob"))
  }
}
