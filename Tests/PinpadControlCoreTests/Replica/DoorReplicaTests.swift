import PinpadControlCore
import PinpadCore
import Testing

/// What a door deciding locally takes from the site, what it refuses (keeping the one it
/// holds), and when its replica is too old (docs/protocol.md, "Replica: format").
@Suite struct DoorReplicaTests {
  typealias R = ReplicaTests
  static let t0 = Instant(nanoseconds: 1_000_000_000_000)

  static func door(maxAge: Duration? = .seconds(100)) -> DoorReplica {
    DoorReplica(device: "door-1", maxAge: maxAge) { CodeTagKey(key: $0) }
  }

  static func offer(_ door: inout DoorReplica, _ replica: Replica, at: Instant = t0)
    -> DoorReplica.Intake
  {
    door.offer(replica.encoded(), now: at, verify: R.verify)
  }

  @Test func aSignedReplicaForThisDeviceIsTakenAndItsLinesDecideWithoutSpendingUses() throws {
    var door = Self.door()
    #expect(door.people == nil)
    #expect(Self.offer(&door, R.replica(generation: 5)) == .taken)
    #expect(door.generation == 5)
    let people = try #require(door.people)
    #expect(people.entries.map(\.name) == ["alice", "bob"])
    #expect(!people.spendsUses)
    #expect(people.key == nil)
    // With a tag-key, the key of the tags comes from it, through the MAC given.
    var keyed = R.replica(generation: 6)
    keyed.tagKey = (0..<32).map { UInt8($0 * 3) }
    keyed.signature = R.sign(keyed.signedBytes, key: 7)
    #expect(Self.offer(&door, keyed) == .taken)
    #expect(door.people?.key?.id == CodeTagKey(key: keyed.tagKey!).id)
  }

  @Test(
    "refused whole, the replica held stays: forged, other device, not newer, unparsable",
    arguments: [
      (R.replica(generation: 9, key: 8), "signature"),
      (R.replica(device: "door-2", generation: 9), "another device (door-2)"),
      (R.replica(generation: 4), "generation 4, not newer than the 5 held"),
      (R.replica(generation: 9, lines: [Array("bad line".utf8)]), "line 1 does not parse"),
    ])
  func refusals(offered: Replica, says: String) throws {
    var door = Self.door()
    #expect(Self.offer(&door, R.replica(generation: 5)) == .taken)
    let intake = Self.offer(&door, offered, at: Self.t0 + .seconds(50))
    guard case .refused(let refusal) = intake else {
      Issue.record("taken: \(intake)")
      return
    }
    #expect(refusal.description.contains(says))
    #expect(!refusal.description.contains("hash"))
    #expect(door.generation == 5)
    #expect(door.age(now: Self.t0 + .seconds(50)) == .seconds(50))
  }

  @Test func theRefusalsComeInTheDocumentedOrder() {
    var door = Self.door()
    _ = Self.offer(&door, R.replica(generation: 5))
    // Forged and for another device and older: the signature is said first.
    guard
      case .refused(.badSignature) = Self.offer(
        &door, R.replica(device: "x", generation: 1, key: 3))
    else {
      Issue.record("not refused for its signature")
      return
    }
    guard case .refused(.otherDevice) = Self.offer(&door, R.replica(device: "x", generation: 1))
    else {
      Issue.record("not refused for its device")
      return
    }
  }

  @Test func anOversizedReplicaIsRefusedUnread() {
    var door = Self.door()
    let intake = door.offer(
      [UInt8](repeating: 0x61, count: Replica.maxBytes + 1), now: Self.t0,
      verify: { _, _ in
        Issue.record("verified")
        return true
      })
    #expect(intake == .refused(.tooLarge(Replica.maxBytes + 1)))
  }

  @Test func theSameReplicaAgainIsNothingNewAndDoesNotMakeItFresh() {
    var door = Self.door()
    _ = Self.offer(&door, R.replica(generation: 5))
    #expect(Self.offer(&door, R.replica(generation: 5), at: Self.t0 + .seconds(90)) == .same)
    #expect(door.age(now: Self.t0 + .seconds(90)) == .seconds(90))
  }

  @Test func staleAfterMaxAgeWithoutAFreshReplicaAndFreshAgainWithANewOne() {
    var door = Self.door(maxAge: .seconds(100))
    #expect(!door.isStale(now: Self.t0))
    _ = Self.offer(&door, R.replica(generation: 5))
    #expect(!door.isStale(now: Self.t0 + .seconds(100)))
    #expect(door.isStale(now: Self.t0 + .seconds(101)))
    #expect(Self.offer(&door, R.replica(generation: 6), at: Self.t0 + .seconds(150)) == .taken)
    #expect(!door.isStale(now: Self.t0 + .seconds(200)))
    var unlimited = Self.door(maxAge: nil)
    _ = Self.offer(&unlimited, R.replica(generation: 5))
    #expect(!unlimited.isStale(now: Self.t0 + .seconds(10_000_000)))
  }

  @Test func aKeptReplicaIsCheckedAgainAndAgesFromWhenItWasReceived() {
    var door = Self.door(maxAge: .seconds(100))
    let intake = door.restore(
      R.replica(generation: 5).encoded(), ago: .seconds(60), now: Self.t0, verify: R.verify)
    #expect(intake == .taken)
    #expect(door.age(now: Self.t0) == .seconds(60))
    #expect(door.isStale(now: Self.t0 + .seconds(41)))
    var forged = Self.door()
    let refused = forged.restore(
      R.replica(generation: 5, key: 9).encoded(), ago: .zero, now: Self.t0, verify: R.verify)
    #expect(refused == .refused(.badSignature))
    #expect(forged.people == nil)
  }
}

/// The pace at which a door checks replicas under a flood.
@Suite struct ReplicaPaceTests {
  static let t0 = Instant(nanoseconds: 5_000_000_000)

  /// Whether each of `count` replicas at `now` is admitted.
  static func admits(_ pace: inout ReplicaPace, _ count: Int, at now: Instant) -> [Bool] {
    (0..<count).map { _ in pace.admit(now: now) }
  }

  @Test func aBurstAtOnceThenOneAnInterval() {
    var pace = ReplicaPace(burst: 3, interval: .seconds(2))
    #expect(Self.admits(&pace, 4, at: Self.t0) == [true, true, true, false])
    #expect(pace.nextAt(now: Self.t0) == Self.t0 + .seconds(2))
    #expect(Self.admits(&pace, 1, at: Self.t0 + .seconds(1)) == [false])
    #expect(Self.admits(&pace, 2, at: Self.t0 + .seconds(2)) == [true, false])
    // Quiet for a while: a full burst again.
    let later = Self.t0 + .seconds(60)
    #expect(pace.nextAt(now: later) == later)
    #expect(Self.admits(&pace, 4, at: later) == [true, true, true, false])
  }
}
