import Testing

@testable import PinpadCore

private let t0 = Instant(nanoseconds: 500 * 1_000_000_000)
private func at(_ seconds: Double) -> Instant { t0 + .nanoseconds(Int64(seconds * 1e9)) }

private func door(_ edit: (inout DoorConfig) -> Void = { _ in }) -> DoorMachine {
  var config = DoorConfig(name: "main", relay: GPIOLineSpec.parse("chip:0")!)
  config.keypads = ["front"]
  config.contact = GPIOLineSpec.parse("chip:1")
  config.exitButton = GPIOLineSpec.parse("chip:2")
  config.heldOpen = .seconds(10)
  edit(&config)
  var machine = DoorMachine(config: config)
  _ = machine.linesAcquired(contactActive: false, exitActive: false, now: t0)
  return machine
}

/// The actions without log lines, in words: `relay(on)`, `unlocked(by ab-1)`, `forced`.
private func words(_ actions: [DoorMachine.Action]) -> [String] {
  actions.compactMap { action in
    switch action {
    case .relay(let unlocked): return "relay(\(unlocked ? "unlocked" : "locked"))"
    case .event(let event, let by): return event.rawValue + (by.map { "(by \($0.text))" } ?? "")
    case .log: return nil
    }
  }
}

@Suite struct DoorMachineTests {
  @Test func takingTheLinesDrivesTheRelayLockedBeforeAnythingElse() {
    var machine = DoorMachine(config: DoorConfig(name: "d", relay: GPIOLineSpec.parse("c:0")!))
    #expect(words(machine.granted(id: "x", keypad: "default", now: t0)) == [])
    #expect(!machine.linesHeld, "nothing unlocks before the lines are held")
    #expect(
      machine.linesAcquired(contactActive: nil, exitActive: nil, now: t0) == [
        .relay(unlocked: false)
      ])
    #expect(machine.lock == .locked && machine.contact == .none)
  }

  @Test func aGrantFromOneOfTheDoorsKeypadsUnlocksForOpenSecThenLocks() {
    var machine = door()
    #expect(
      words(machine.granted(id: "ab-1", keypad: "front", now: t0)) == [
        "relay(unlocked)", "unlocked(by ab-1)",
      ])
    #expect(machine.nextDeadline == at(3))
    #expect(words(machine.tick(now: at(2.999))) == [])
    #expect(words(machine.tick(now: at(3))) == ["relay(locked)", "locked"])
    #expect(machine.lock == .locked && machine.nextDeadline == nil)
  }

  @Test func aGrantFromAnotherKeypadOpensNothing() {
    var machine = door()
    #expect(machine.granted(id: "ab-1", keypad: "back", now: t0).isEmpty)
    #expect(machine.lock == .locked)
  }

  @Test func aSecondOpenWhileUnlockedExtendsWithoutDrivingTheRelayAgain() {
    var machine = door()
    _ = machine.granted(id: "ab-1", keypad: "front", now: t0)
    #expect(words(machine.remoteOpen(now: at(2))) == ["unlocked(by remote)"])
    #expect(words(machine.tick(now: at(3))) == [])
    #expect(words(machine.tick(now: at(5))) == ["relay(locked)", "locked"])
  }

  @Test func theContactOpeningWhileLockedIsForcedOnceItHeldForDebounceSec() {
    var machine = door()
    #expect(words(machine.line(.contact, active: true, now: t0)) == [])
    #expect(machine.nextDeadline == at(0.05))
    #expect(words(machine.tick(now: at(0.05))) == ["opened", "forced"])
    #expect(machine.forced && machine.contact == .open)
    #expect(words(machine.line(.contact, active: false, now: at(1))) == [])
    #expect(words(machine.tick(now: at(1.05))) == ["closed"])
    #expect(!machine.forced && machine.lock == .locked)
  }

  @Test func aBounceShorterThanDebounceSecIsNoChange() {
    var machine = door()
    _ = machine.line(.contact, active: true, now: t0)
    _ = machine.line(.contact, active: false, now: at(0.02))
    #expect(machine.nextDeadline == nil)
    #expect(words(machine.tick(now: at(1))) == [])
    #expect(machine.contact == .closed)
  }

  @Test func openedAfterAGrantAndKeptOpenPastHeldOpenSecIsHeldOpenOnce() {
    var machine = door()
    _ = machine.granted(id: "ab-1", keypad: "front", now: t0)
    _ = machine.line(.contact, active: true, now: at(1))
    #expect(words(machine.tick(now: at(1.05))) == ["opened"], "an authorised opening is not forced")
    #expect(words(machine.tick(now: at(3))) == ["relay(locked)", "locked"])
    #expect(machine.nextDeadline == at(11.05))
    #expect(words(machine.tick(now: at(11.05))) == ["held_open"])
    #expect(words(machine.tick(now: at(30))) == [])
    _ = machine.line(.contact, active: false, now: at(40))
    #expect(words(machine.tick(now: at(40.05))) == ["closed"], "the relay stays locked")
  }

  @Test func closedBeforeHeldOpenSecRaisesNoAlarm() {
    var machine = door()
    _ = machine.remoteOpen(now: t0)
    _ = machine.line(.contact, active: true, now: at(1))
    _ = machine.tick(now: at(1.05))
    _ = machine.line(.contact, active: false, now: at(5))
    #expect(words(machine.tick(now: at(5.05))) == ["closed"])
    #expect(words(machine.tick(now: at(20))) == [])
  }

  @Test func theExitButtonUnlocksOnItsPressNotItsRelease() {
    var machine = door()
    _ = machine.line(.exitButton, active: true, now: t0)
    #expect(words(machine.tick(now: at(0.05))) == ["exit", "relay(unlocked)", "unlocked(by exit)"])
    _ = machine.line(.exitButton, active: false, now: at(0.5))
    #expect(words(machine.tick(now: at(0.55))) == [])
  }

  @Test func anExitButtonAlreadyHeldAtStartIsNoPress() {
    var config = DoorConfig(name: "d", relay: GPIOLineSpec.parse("c:0")!)
    config.exitButton = GPIOLineSpec.parse("c:1")
    var machine = DoorMachine(config: config)
    _ = machine.linesAcquired(contactActive: nil, exitActive: true, now: t0)
    #expect(words(machine.line(.exitButton, active: true, now: at(1))) == [])
    #expect(words(machine.tick(now: at(2))) == [])
  }

  @Test func withLinesLostNothingUnlocksAndTheStateIsUnknownUntilTheyAreBack() {
    var machine = door()
    _ = machine.granted(id: "ab-1", keypad: "front", now: t0)
    let lost = machine.linesLost(reason: "No such device")
    #expect(lost.count == 1)
    #expect(!machine.isUnlocked && machine.contact == .unknown && machine.nextDeadline == nil)
    #expect(words(machine.remoteOpen(now: at(1))) == [])
    #expect(words(machine.granted(id: "ab-2", keypad: "front", now: at(1))) == [])
    #expect(machine.linesLost(reason: "again").isEmpty, "one log line, not one a second")
    #expect(
      machine.linesAcquired(contactActive: true, exitActive: false, now: at(5)) == [
        .relay(unlocked: false)
      ])
    #expect(machine.contact == .open && machine.lock == .locked)
  }

  @Test func aZeroDebounceTakesALevelAtOnce() {
    var machine = door { $0.debounce = .zero }
    #expect(words(machine.line(.contact, active: true, now: t0)) == ["opened", "forced"])
  }
}

@Suite struct DoorsTests {
  private func doors() -> Doors {
    var a = DoorConfig(name: "front", relay: GPIOLineSpec.parse("c:0")!)
    a.keypads = ["front"]
    let b = DoorConfig(name: "all", relay: GPIOLineSpec.parse("c:1")!)
    var doors = Doors([a, b])
    _ = doors.linesAcquired(door: "front", contactActive: nil, exitActive: nil, now: t0)
    _ = doors.linesAcquired(door: "all", contactActive: nil, exitActive: nil, now: t0)
    return doors
  }

  @Test func aGrantOpensEveryDoorOfItsKeypadAndSaysSoOnTheSocket() {
    var doors = doors()
    let effects = doors.granted(id: "ab-1", keypad: "front", now: t0)
    #expect(effects.contains(.relay(door: "front", unlocked: true)))
    #expect(effects.contains(.relay(door: "all", unlocked: true)))
    #expect(effects.contains(.broadcast(.door("front", event: .unlocked, by: .attempt("ab-1")))))
    _ = doors.tick(now: at(5))
    let side = doors.granted(id: "ab-2", keypad: "side", now: at(10))
    #expect(!side.contains(.relay(door: "front", unlocked: true)))
    #expect(side.contains(.relay(door: "all", unlocked: true)))
  }

  @Test func anOpenForAnUnknownDoorIsRefused() {
    var doors = doors()
    #expect(doors.remoteOpen(door: "nope", now: t0) == nil)
    #expect(
      doors.remoteOpen(door: "front", now: t0)?.contains(.relay(door: "front", unlocked: true))
        == true)
  }

  @Test func theStatusSaysLockContactAndLines() {
    var doors = doors()
    _ = doors.remoteOpen(door: "front", now: t0)
    _ = doors.linesLost(door: "all", reason: "gone")
    #expect(
      doors.status.serialized
        == "[{\"name\":\"front\",\"lock\":\"unlocked\",\"contact\":\"none\",\"forced\":false,\"lines\":\"ok\"},"
        + "{\"name\":\"all\",\"lock\":\"unknown\",\"contact\":\"none\",\"forced\":false,\"lines\":\"lost\"}]"
    )
  }

  @Test func theDoorMessageHasByOnlyWhenGiven() {
    #expect(
      DaemonMessage.door("d", event: "forced", by: nil)
        == "{\"type\":\"door\",\"door\":\"d\",\"event\":\"forced\"}\n")
    #expect(
      OutgoingMessage.door("front", event: .unlocked, by: .attempt("ab-1")).line
        == "{\"type\":\"door\",\"door\":\"front\",\"event\":\"unlocked\",\"by\":\"ab-1\"}\n")
    #expect(
      OutgoingMessage.door("d", event: .heldOpen, by: nil).line
        == "{\"type\":\"door\",\"door\":\"d\",\"event\":\"held_open\"}\n")
    #expect(
      OutgoingMessage.door("d", event: .unlocked, by: .remote).line
        == "{\"type\":\"door\",\"door\":\"d\",\"event\":\"unlocked\",\"by\":\"remote\"}\n")
  }

  @Test func anOpenRequestNeedsAValidDoorName() {
    #expect(
      ClientRequest.parse(Array(#"{"type":"open","door":"front"}"#.utf8))
        == .success(.open(door: "front")))
    #expect(throws: Never.self) {
      if case .success = ClientRequest.parse(Array(#"{"type":"open"}"#.utf8)) {
        Issue.record("accepted")
      }
      if case .success = ClientRequest.parse(Array(#"{"type":"open","door":"a b"}"#.utf8)) {
        Issue.record("accepted")
      }
    }
  }
}

/// Only a granted verdict for a still-waiting attempt opens (docs/protocol.md, "Doors:
/// who may unlock"), with the Session and the Doors wired as the daemon wires them.
@Suite struct SessionDoorTests {
  private func script() -> SessionScript {
    var s = SessionScript { config in
      config.keypads = [KeypadConfig(name: "front"), KeypadConfig(name: "back")]
      var door = DoorConfig(name: "main", relay: GPIOLineSpec.parse("c:0")!)
      door.keypads = ["front"]
      config.doors = [door]
    }
    var doors = Doors(s.session.config.doors)
    _ = doors.linesAcquired(door: "main", contactActive: nil, exitActive: nil, now: s.now)
    s.doors = doors
    s.run("keypad=front clients=1")
    return s
  }
  private func opened(_ s: SessionScript) -> Bool {
    s.doorEffects.contains(.relay(door: "main", unlocked: true))
  }

  @Test func aGrantedVerdictForAWaitingAttemptOpens() {
    var s = script()
    s.run("1 2 3 4 ENTER granted")
    #expect(s.grants.map(\.keypad) == ["front"])
    #expect(opened(s))
  }

  @Test func aDeniedVerdictOpensNothing() {
    var s = script()
    s.run("1 2 3 4 ENTER denied")
    #expect(s.grants.isEmpty && !opened(s))
  }

  @Test func aVerdictAfterItsAttemptTimedOutOpensNothing() {
    var s = script()
    s.run("1 2 3 4 ENTER")
    let id = s.lastSentID!
    s.run("+11 tick granted:\(id)")
    #expect(s.grants.isEmpty && !opened(s))
  }

  @Test func aReplayedIdOpensOnceOnly() {
    var s = script()
    s.run("1 2 3 4 ENTER")
    let id = s.lastSentID!
    s.run("granted:\(id) +5 tick granted:\(id) granted:\(id)")
    #expect(s.grants.count == 1)
    #expect(s.doorEffects.filter { $0 == .relay(door: "main", unlocked: true) }.count == 1)
  }

  @Test func anUnknownIdOpensNothing() {
    var s = script()
    s.run("granted:ab-99 granted:zz-1")
    #expect(s.grants.isEmpty && !opened(s))
  }

  @Test func aGrantOnAKeypadOfAnotherDoorOpensNothing() {
    var s = script()
    s.run("keypad=back 1 2 3 4 ENTER granted")
    #expect(s.grants.map(\.keypad) == ["back"])
    #expect(!opened(s))
  }

  @Test func theStatusCarriesTheDoors() {
    var s = script()
    let doors = s.doors!.status
    s.send(.status(client: 1, ShellStatus(doors: doors)))
    #expect(s.lastStatus?.doors == doors)
    #expect(
      s.replies.last?.message.line.contains("\"doors\":[{\"name\":\"main\",\"lock\":\"locked\"")
        == true)
  }
}

@Suite struct DoorRelayTimingTests {
  @Test func openSecRunsFromWhenTheChipTookTheRelayNotFromTheGrant() {
    var machine = door()
    _ = machine.granted(id: "ab-1", keypad: "front", now: t0)
    machine.relayDriven(unlocked: true, now: at(0.2))  // a slow chip
    #expect(machine.nextDeadline == at(3.2))
    #expect(words(machine.tick(now: at(3.1))) == [])
    #expect(words(machine.tick(now: at(3.2))) == ["relay(locked)", "locked"])
  }

  @Test func anEarlierAnswerNeverShortensTheOpening() {
    var machine = door()
    _ = machine.granted(id: "ab-1", keypad: "front", now: at(1))
    machine.relayDriven(unlocked: true, now: t0)
    #expect(machine.nextDeadline == at(4))
  }
}
