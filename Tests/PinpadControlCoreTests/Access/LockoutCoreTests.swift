import PinpadControlCore
import PinpadCore
import Testing

/// The controller's lockout through `DecisionCore`: per place, the global bound across
/// keypads, and the effects (lines to log, states to save), with a clock the test moves.
@Suite struct LockoutCoreTests {
  static let rules: LockoutConfig = {
    var rules = LockoutConfig()
    rules.maxFailures = 3
    rules.lockout = .seconds(60)
    rules.lockoutMax = .seconds(120)
    return rules
  }()

  static func fail(_ fixture: CoreFixture, _ times: Int, keypad: String = "door") {
    for n in 0..<times { fixture.attempt(code: "40\(n)0", keypad: keypad) }
  }

  @Test func maxFailuresDenialsLockThePlaceAndEvenTheRightCodeIsDeniedUnchecked() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 3)
    let calls = fixture.checked.count
    let locked = fixture.attempt(code: "2222")
    #expect(locked.decision == .deny(.locked))
    #expect(!locked.pending.checked)
    #expect(fixture.checked.count == calls, "no crypt(3) while locked")
  }

  @Test func theDenialThatLocksSaysSoAndSavesTheState() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 2)
    let third = fixture.attempt(code: "4321")
    #expect(third.said == ["warning: door locked for 60 s after 3 denials in a row"])
    #expect(third.saved?["door"]?.lockedUntil == fixture.now.mono + .seconds(60))
  }

  @Test func everyCheckedDenialSavesTheCountSoARestartKeepsIt() {
    let fixture = CoreFixture(rules: Self.rules)
    let first = fixture.attempt(code: "4321")
    #expect(first.saved == ["door": LockoutState(failures: 1)])
    #expect(first.said.isEmpty)
  }

  @Test func aLockedDenialChangesNothingToSave() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 3)
    #expect(fixture.attempt(code: "4321").effects.isEmpty)
  }

  @Test func theLockEndsAfterLockoutSec() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 3)
    fixture.advance(.seconds(59))
    #expect(fixture.attempt(code: "2222").decision == .deny(.locked))
    fixture.advance(.seconds(1))
    #expect(fixture.attempt(code: "2222").decision == .grant("bob"))
  }

  @Test func eachFurtherLockoutDoublesUpToLockoutMaxSec() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 3)
    fixture.advance(.seconds(60))
    Self.fail(fixture, 2)
    #expect(
      fixture.attempt(code: "4321").said == [
        "warning: door locked for 120 s after 3 denials in a row"
      ])
    fixture.advance(.seconds(120))
    Self.fail(fixture, 2)
    #expect(
      fixture.attempt(code: "4321").said == [
        "warning: door locked for 120 s after 3 denials in a row"
      ], "capped")
  }

  @Test func aGrantResetsTheCountAndSavesTheEmptyState() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 2)
    let grant = fixture.attempt(code: "2222")
    #expect(grant.saved == [:])
    Self.fail(fixture, 2)
    #expect(fixture.attempt(code: "2222").decision == .grant("bob"), "2 in a row, not 4")
  }

  @Test func aGrantWithNothingToForgetSavesNothing() {
    #expect(CoreFixture(rules: Self.rules).attempt(code: "2222").effects.isEmpty)
  }

  @Test func theLockIsPerPlace() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.fail(fixture, 3)
    #expect(fixture.attempt(code: "2222", keypad: "side").decision == .grant("bob"))
    #expect(fixture.attempt(code: "2222", keypad: "door").decision == .deny(.locked))
  }

  @Test func aFleetPlaceIsTheTopicWithoutCode() {
    let fixture = CoreFixture(rules: Self.rules)
    for n in 0..<3 { fixture.attempt(code: "40\(n)0", keypad: "lobby", device: "door1") }
    #expect(fixture.core.lockout.states["pinpadd/door1/lobby"]?.lockedUntil != nil)
    #expect(
      fixture.attempt(code: "2222", keypad: "lobby", device: "door2").decision == .grant("bob"))
  }

  @Test func aUsedUpOrUnrecordedGrantCountsAsADenial() {
    let fixture = CoreFixture(rules: Self.rules)
    fixture.attempt(code: "3333", recorded: .denied(.usedUp))
    fixture.attempt(code: "2222", recorded: .failed)
    #expect(fixture.core.lockout.states["door"]?.failures == 2)
  }

  @Test func aStateNamedStarLocksEveryPlace() {
    let fixture = CoreFixture(
      rules: Self.rules, states: ["*": LockoutState(level: 1, lockedUntil: .seconds(1030))])
    #expect(fixture.attempt(code: "2222", keypad: "any").decision == .deny(.locked))
    fixture.advance(.seconds(31))
    #expect(fixture.attempt(code: "2222", keypad: "any").decision == .grant("bob"))
  }

  /// 50 checked denials at once on 50 invented keypads.
  static func exhaustGlobal(_ fixture: CoreFixture, from: Int = 0, count: Int = 50) {
    for n in from..<(from + count) { fixture.attempt(code: "4321", keypad: "k\(n)") }
  }

  @Test func theGlobalBoundDeniesEveryKeypadPast50DenialsAtOnce() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.exhaustGlobal(fixture)
    let next = fixture.attempt(code: "2222", keypad: "main", device: "door2")
    #expect(next.decision == .deny(.locked), "even a right code on a keypad never used")
    #expect(
      next.said == [
        "warning: too many denials on all keypads together (over 50); every code is denied"
          + " (reason locked) for a while"
      ])
  }

  /// The exact timing `fleetLockout` (end to end) cannot hold on a loaded machine: with
  /// the burst spent at one instant, the next check comes as soon as time moves on,
  /// then one every interval (GCRA): 50/5 by default, 3/3600 as
  /// `PINPADCTL_GLOBAL_BOUND=3/3600` sets it.
  @Test(arguments: [(50, 5), (3, 3600)])
  func theGlobalBoundLetsExactlyOneMoreCheckEachInterval(burst: Int, seconds: Int64) {
    let fixture = CoreFixture(
      rules: Self.rules, global: .init(burst: burst, interval: .seconds(seconds)))
    Self.exhaustGlobal(fixture, count: burst)
    for n in burst..<(burst + 20) {
      #expect(fixture.attempt(code: "4321", keypad: "k\(n)").decision == .deny(.locked))
    }
    fixture.advance(.milliseconds(1))
    #expect(fixture.attempt(code: "4321", keypad: "next").decision == .deny(.unknown), "checked")
    #expect(fixture.attempt(code: "2222", keypad: "main").decision == .deny(.locked))
    fixture.advance(.milliseconds(seconds * 1000 - 1))
    #expect(fixture.attempt(code: "2222", keypad: "main").decision == .deny(.locked))
    fixture.advance(.milliseconds(1))
    #expect(fixture.attempt(code: "2222", keypad: "main").decision == .grant("bob"))
  }

  @Test func theGlobalWarningIsSaidOnceEachTimeItStarts() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.exhaustGlobal(fixture)
    #expect(fixture.attempt(code: "4321", keypad: "x").said.count == 1)
    #expect(fixture.attempt(code: "4321", keypad: "y").said.isEmpty)
    fixture.advance(.seconds(5))
    #expect(fixture.attempt(code: "4321", keypad: "z").decision == .deny(.unknown))
    #expect(fixture.attempt(code: "4321", keypad: "w").said.count == 1, "in force again")
  }

  @Test func aGrantDoesNotSpendTheGlobalBound() {
    let fixture = CoreFixture(rules: Self.rules)
    for n in 0..<200 { fixture.attempt(code: "2222", keypad: "k\(n)") }
    #expect(fixture.attempt(code: "2222", keypad: "last").decision == .grant("bob"))
  }

  @Test func theGlobalBoundIsNotSavedOnlyThePlaces() {
    let fixture = CoreFixture(rules: Self.rules)
    Self.exhaustGlobal(fixture)
    #expect(Set(fixture.core.lockout.states.keys) == Set((0..<50).map { "k\($0)" }))
  }
}
