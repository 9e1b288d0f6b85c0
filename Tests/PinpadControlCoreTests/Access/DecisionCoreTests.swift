import PinpadControlCore
import PinpadCore
import Testing

/// `DecisionCore`'s decisions as values (docs/protocol.md, "Codes file: matching",
/// "Codes file: options", "Socket: denial reasons"): no process, no file, no real clock.
@Suite struct DecisionCoreTests {
  @Test func aRightPinGrantsNamingThePerson() {
    let outcome = CoreFixture().attempt(code: "2222")
    #expect(outcome.decision == .grant("bob"))
    #expect(outcome.pending.checked)
  }

  @Test func aCodeNoLineMatchesIsDeniedUnknownWithoutAPerson() {
    let outcome = CoreFixture().attempt(code: "4321")
    #expect(outcome.decision == .deny(.unknown))
    #expect(outcome.pending.checked, "a wrong code counts towards the lockout")
  }

  @Test func aDuressLineGrantsAndSaysDuress() {
    let outcome = CoreFixture().attempt(code: "9999")
    #expect(outcome.decision == .grant("dave", duress: true))
  }

  @Test("a duress line its rules deny still says duress: the door stays shut, the alarm is raised")
  func aDeniedDuressLineStillSaysDuress() {
    let fixture = CoreFixture()
    let text = "eve:$plain$8787:duress,hours=2200-0600\nzed:$plain$7878:duress,uses=1\n"
    fixture.people = People(entries: CodesFile.parse(Array(text.utf8), path: "codes").entries)
    let outside = fixture.attempt(code: "8787").decision
    #expect(outside == .deny(.outsideHours, person: "eve", duress: true))
    #expect(
      outside.verdict(id: "x").verdictPayload
        == #"{"id":"x","result":"denied","duress":true,"reason":"outside_hours"}"#)
    #expect(
      outside.logLines(id: "x", place: "front").map(\.plain) == [
        "warning: DURESS: eve on front (attempt x); the door stayed shut (outside_hours)",
        "attempt x on front: denied (outside_hours; eve)",
      ])
    let spent = fixture.attempt(code: "7878", recorded: .denied(.usedUp)).decision
    #expect(spent == .deny(.usedUp, person: "zed", duress: true))
    #expect(fixture.attempt(code: "1111").decision == .deny(.unknown), "no line, no duress")
  }

  @Test func aCountedLineGrantsWithItsUsesToSpend() {
    let outcome = CoreFixture().attempt(code: "3333")
    #expect(outcome.decision == .grant("guest", uses: 1))
    #expect(outcome.record?.decision.uses == 1, "the record spends one")
  }

  @Test func aGrantTheLogRefusesIsDeniedUsedUpWithThePerson() {
    let outcome = CoreFixture().attempt(code: "3333", recorded: .denied(.usedUp))
    #expect(outcome.decision == .deny(.usedUp, person: "guest"))
    #expect(outcome.pending.decision.granted, "granted until the log said no")
  }

  @Test func aDecisionThatCannotBeRecordedIsDeniedUnavailable() {
    let outcome = CoreFixture().attempt(code: "2222", recorded: .failed)
    #expect(outcome.decision == .deny(.unavailable, person: "bob"))
  }

  @Test func aReplicaThatCannotSpendUsesDeniesCountedLinesUnavailable() {
    let fixture = CoreFixture()
    fixture.people.spendsUses = false
    #expect(fixture.attempt(code: "3333").decision == .deny(.unavailable, person: "guest"))
    #expect(fixture.attempt(code: "2222").decision == .grant("bob"), "other lines still grant")
  }

  @Test func doorsGrantOnTheirKeypadsAndDenyWrongDoorElsewhere() {
    let fixture = CoreFixture()
    #expect(fixture.attempt(code: "4444", keypad: "garage").decision == .grant("garage"))
    #expect(
      fixture.attempt(code: "4444", keypad: "front").decision
        == .deny(.wrongDoor, person: "garage"))
  }

  @Test func doorsMatchDeviceSlashKeypadGlobsInAFleet() {
    let fixture = CoreFixture()
    #expect(
      fixture.attempt(code: "4444", keypad: "back", device: "site-7").decision == .grant("garage"))
    #expect(
      fixture.attempt(code: "4444", keypad: "front", device: "site-7").decision
        == .deny(.wrongDoor, person: "garage"))
    #expect(
      fixture.attempt(code: "4444", keypad: "garage", device: "site-7").decision
        == .deny(.wrongDoor, person: "garage"), "a fleet door is DEVICE/KEYPAD, not KEYPAD")
  }

  @Test func anExpiredLineIsDeniedExpired() {
    #expect(CoreFixture().attempt(code: "5555").decision == .deny(.expired, person: "old"))
  }

  @Test func aLineNotYetValidIsDeniedNotYetValid() {
    #expect(
      CoreFixture().attempt(code: "6666").decision == .deny(.notYetValid, person: "future"))
  }

  @Test func aDisabledLineIsDeniedDisabled() {
    #expect(CoreFixture().attempt(code: "7777").decision == .deny(.disabled, person: "off"))
  }

  @Test func hoursGrantInsideTheirWindow() {
    #expect(CoreFixture().attempt(code: "8888").decision == .grant("day"))
  }

  @Test func hoursDenyOutsideHoursOutsideTheirWindow() {
    let fixture = CoreFixture(at: CoreFixture.noon + 2 * 3_600_000)
    #expect(fixture.attempt(code: "8888").decision == .deny(.outsideHours, person: "day"))
  }

  @Test func hoursAcrossMidnightHoldTheEveningAndTheMorningAfter() {
    #expect(CoreFixture().attempt(code: "8989").decision == .deny(.outsideHours, person: "night"))
    let evening = CoreFixture(at: CoreFixture.noon + 11 * 3_600_000)
    #expect(evening.attempt(code: "8989").decision == .grant("night"))
    let morning = CoreFixture(at: CoreFixture.noon + 17 * 3_600_000)
    #expect(morning.attempt(code: "8989").decision == .grant("night"))
  }

  @Test func theTimeZoneDecidesTheHours() {
    let fixture = CoreFixture()
    let twoHoursEast = LocalZone { _ in 7200 }
    fixture.core = DecisionCore(
      lockout: ControllerLockout(rules: LockoutConfig()), zone: twoHoursEast,
      clock: { [unowned fixture] in fixture.now }, firstMatch: CoreFixture.plainMatch)
    #expect(fixture.attempt(code: "8888").decision == .deny(.outsideHours, person: "day"))
  }

  @Test func ofTwoLinesWithOneCodeTheOneThatMayGrantNowIsChecked() {
    let fixture = CoreFixture()
    // early (index 11) keeps to 0000-0100, late (12) does not: late is checked first,
    // with the lines that may grant now, in file order; the others after them.
    #expect(fixture.attempt(code: "1212").decision == .grant("late"))
    let order = fixture.checked.last ?? []
    #expect(order.firstIndex(of: 12)! < order.firstIndex(of: 11)!)
    #expect(order.suffix(6) == [5, 6, 7, 8, 10, 11], "garage, old, future, off, night, early")
  }

  @Test func theFirstMatchingLineInFileOrderWins() {
    #expect(CoreFixture().attempt(code: "1111").decision == .grant("alice"))
  }

  @Test func aCardWithThePinOfItsLineGrants() {
    #expect(CoreFixture().attempt(code: "1111", card: "00A").decision == .grant("alice"))
  }

  @Test func aCardWithAnotherLinesPinIsDeniedUnknown() {
    #expect(CoreFixture().attempt(code: "2222", card: "00A").decision == .deny(.unknown))
  }

  @Test func aCardAloneGrantsACardOnlyLine() {
    #expect(CoreFixture().attempt(card: "00C").decision == .grant("carol"))
  }

  @Test func aCardAloneIsCheckedOnlyAgainstCardOnlyLines() {
    let fixture = CoreFixture()
    #expect(fixture.attempt(card: "00A").decision == .deny(.unknown), "alice needs her PIN")
    #expect(fixture.checked == [[2]], "carol's line alone")
  }

  @Test func aCodeNoLineCanTakeCostsNoCryptCall() {
    let fixture = CoreFixture()
    fixture.people = People(entries: CoreFixture.entries.filter { $0.pinHash == nil })
    #expect(fixture.attempt(code: "1111").decision == .deny(.unknown))
    #expect(fixture.checked.isEmpty)
  }

  @Test func aMessageWithNeitherCodeNorCardIsDeniedUnknownUncounted() {
    let fixture = CoreFixture()
    let outcome = fixture.attempt()
    #expect(outcome.decision == .deny(.unknown))
    #expect(!outcome.pending.checked)
    #expect(outcome.effects.isEmpty, "no lockout change")
    #expect(outcome.record != nil, "still recorded")
  }

  @Test(arguments: ["11a1", String(repeating: "1", count: 33), "", "12 4"])
  func whatCannotBeACodeIsDeniedUnknownUncheckedButCounted(code: String) {
    let fixture = CoreFixture()
    let outcome = fixture.attempt(code: code)
    #expect(outcome.decision == .deny(.unknown))
    #expect(fixture.checked.isEmpty)
    #expect(outcome.pending.checked)
  }

  @Test func whatCannotBeACardIsDeniedUnknownUnchecked() {
    let fixture = CoreFixture()
    #expect(fixture.attempt(code: "1111", card: "00-A").decision == .deny(.unknown))
    #expect(fixture.checked.isEmpty)
  }

  @Test func theCodeAndCardAreZeroedWhateverIsDecided() {
    let fixture = CoreFixture()
    #expect(fixture.attempt(code: "1111", card: "00A").wiped)
    #expect(fixture.attempt(code: "4321").wiped)
    #expect(fixture.attempt(code: "11a1").wiped)
    #expect(fixture.attempt(card: "00C").wiped)
    #expect(fixture.zeroed == 5, "through the zeroing function the shell gives")
  }

  @Test func aLockedAttemptIsZeroedToo() {
    let fixture = CoreFixture(states: ["door": LockoutState(lockedUntil: .seconds(9e6))])
    let outcome = fixture.attempt(code: "1111")
    #expect(outcome.decision == .deny(.locked))
    #expect(outcome.wiped)
  }

  @Test func theRecordCarriesTheTimeThePlaceAndTheAttempt() {
    let record = CoreFixture().attempt(code: "9999", keypad: "back", device: "d1", id: "x7").record
    #expect(
      record
        == DecisionCore.Record(
          at: CoreFixture.noon, device: "d1", keypad: "back", attempt: "x7",
          decision: .grant("dave", duress: true)))
  }

  @Test func keyedTagsLeaveOnlyTheLinesTheCodeCanBelongTo() {
    let key = CodeTagKey(key: Array(repeating: 7, count: 32))
    var entries = CoreFixture.entries
    for index in entries.indices where entries[index].pinHash != nil {
      let secret = Array(entries[index].pinHash!.dropFirst(7))
      entries[index].pinTag = secret.withUnsafeBufferPointer {
        key.tag(.pin, hash: entries[index].pinHash!, secret: $0, digits: 8)
      }
    }
    let fixture = CoreFixture()
    fixture.people = People(entries: entries, key: key)
    #expect(fixture.attempt(code: "1111").decision == .grant("alice"))
    #expect(fixture.checked.last == [0, 13], "alice and erin only")
    fixture.people = People(entries: entries)
    _ = fixture.attempt(code: "1111")
    #expect(fixture.checked.last?.count == entries.filter { $0.pinHash != nil }.count)
  }

  @Test func anAttemptsDoorIsItsKeypadOrDeviceSlashKeypad() {
    #expect(Attempt(id: "a", keypad: "front").door == "front")
    #expect(Attempt(id: "a", device: "d", keypad: "front").door == "d/front")
    #expect(Attempt(id: "a", keypad: "front").place == "front", "the lockout's place by default")
  }

  @Test func aMomentRoundsItsSecondsDownAlsoBefore1970() {
    #expect(Moment(wallMs: 1999, mono: .zero).epochSeconds == 1)
    #expect(Moment(wallMs: -1, mono: .zero).epochSeconds == -1)
    #expect(Moment(wallMs: -1000, mono: .zero).epochSeconds == -1)
  }
}
