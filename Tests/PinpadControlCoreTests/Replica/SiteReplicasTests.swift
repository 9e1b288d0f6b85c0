import PinpadControlCore
import PinpadCore
import Testing

/// The site's replica decisions (docs/protocol.md, "Replica"): which devices get a new
/// replica when, and their generations, as values.
@Suite struct SiteReplicasTests {
  static let t0: Int64 = 1_796_619_600_000
  static let door1 = "pinpadd/door1"

  /// A site that knows door1 (online, keypad `front`) and made its first replica at t0.
  static func published() -> SiteReplicas {
    var site = SiteReplicas()
    site.codesChanged()
    site.status(deviceTopic: door1, online: true)
    site.keypad(deviceTopic: door1, keypad: "front", present: true)
    site.made(door1, generation: site.nextGeneration(door1, nowMs: t0), codes: site.codes, atMs: t0)
    return site
  }

  @Test func aDeviceIsKnownFromItsOnlineStatusAndThenGetsAReplica() {
    var site = SiteReplicas()
    site.keypad(deviceTopic: Self.door1, keypad: "front", present: true)
    #expect(site.due(nowMs: Self.t0).isEmpty)  // keypads alone: not a device yet
    let taken = site.status(deviceTopic: "pinpadd/door2", online: false)
    #expect(!taken)
    #expect(site.due(nowMs: Self.t0).isEmpty)
    site.status(deviceTopic: Self.door1, online: true)
    #expect(site.due(nowMs: Self.t0) == [Self.door1])
    #expect(site.keypads(of: Self.door1) == ["front"])
  }

  @Test func nothingIsDueOnceMadeUntilSomethingChanges() {
    let site = Self.published()
    #expect(site.due(nowMs: Self.t0 + 5000).isEmpty)
  }

  @Test func aCodesFileChangeMakesEveryKnownDeviceDueWithinASecond() {
    var site = Self.published()
    site.status(deviceTopic: "pinpadd/door2", online: true)
    site.made("pinpadd/door2", generation: 7, codes: site.codes, atMs: Self.t0)
    site.status(deviceTopic: "pinpadd/door2", online: false)  // away: still sent (retained)
    site.codesChanged()
    #expect(site.due(nowMs: Self.t0 + 500).isEmpty)  // at most one a second
    #expect(site.due(nowMs: Self.t0 + 1000) == [Self.door1, "pinpadd/door2"])
  }

  @Test func aKeypadAddedOrRemovedMakesItsDeviceDue() {
    var site = Self.published()
    site.keypad(deviceTopic: Self.door1, keypad: "back", present: true)
    #expect(site.due(nowMs: Self.t0 + 1000) == [Self.door1])
    site.made(Self.door1, generation: 99, codes: site.codes, atMs: Self.t0 + 1000)
    #expect(site.due(nowMs: Self.t0 + 3000).isEmpty)
    site.keypad(deviceTopic: Self.door1, keypad: "back", present: false)
    #expect(site.due(nowMs: Self.t0 + 3000) == [Self.door1])
    #expect(site.keypads(of: Self.door1) == ["front"])
  }

  @Test func theReplicaLevelsUnderADeviceAreNotKeypads() {
    var site = Self.published()
    for level in ["replica", "door", "log", ""] {
      let taken = site.keypad(deviceTopic: Self.door1, keypad: level, present: true)
      #expect(!taken)
    }
    #expect(site.due(nowMs: Self.t0 + 5000).isEmpty)
  }

  @Test func itIsReSignedHourlyAndWhenTheClockGoesBack() {
    let site = Self.published()
    #expect(site.due(nowMs: Self.t0 + SiteReplicas.resignAfterMs - 1).isEmpty)
    #expect(site.due(nowMs: Self.t0 + SiteReplicas.resignAfterMs) == [Self.door1])
    #expect(site.due(nowMs: Self.t0 - 1) == [Self.door1])
  }

  @Test func comingBackOnlineOrTheSiteReconnectingSendsItAgain() {
    var site = Self.published()
    site.status(deviceTopic: Self.door1, online: true)  // still online: nothing new
    #expect(site.due(nowMs: Self.t0 + 5000).isEmpty)
    site.status(deviceTopic: Self.door1, online: false)
    site.status(deviceTopic: Self.door1, online: true)
    #expect(site.due(nowMs: Self.t0 + 5000) == [Self.door1])
    site.made(Self.door1, generation: 99, codes: site.codes, atMs: Self.t0 + 5000)
    site.reconnected()
    #expect(site.due(nowMs: Self.t0 + 6000) == [Self.door1])
  }

  @Test func theGenerationOnlyGrowsAndStartsFromWhatTheDatabaseHeld() {
    var site = SiteReplicas(generations: [Self.door1: 5_000_000_000_000])
    let next = site.nextGeneration(Self.door1, nowMs: Self.t0)
    #expect(next == 5_000_000_000_001)
    site.made(Self.door1, generation: next, codes: 0, atMs: Self.t0)
    #expect(site.generation(Self.door1) == next)
    // A device the database never saw starts from the clock, so a lost database still
    // goes forward; and never below the last one.
    #expect(site.nextGeneration("pinpadd/door2", nowMs: Self.t0) == UInt64(Self.t0))
    site.made("pinpadd/door2", generation: 10, codes: 0, atMs: Self.t0)
    site.made("pinpadd/door2", generation: 3, codes: 0, atMs: Self.t0)
    #expect(site.generation("pinpadd/door2") == 10)
    #expect(site.nextGeneration("pinpadd/door2", nowMs: 0) == 11)
  }

  @Test func devicesAndKeypadsAreBounded() {
    var site = SiteReplicas()
    var taken: [Bool] = []
    for n in 0..<SiteReplicas.maxDevices {
      taken.append(site.status(deviceTopic: "d/\(n)", online: true))
    }
    #expect(taken.allSatisfy { $0 })
    let newDevice = site.status(deviceTopic: "d/new", online: true)
    let newKeypads = site.keypad(deviceTopic: "d/new", keypad: "k", present: true)
    let offline = site.status(deviceTopic: "d/0", online: false)
    #expect(!newDevice && !newKeypads && offline)
    taken = []
    for n in 0..<SiteReplicas.maxKeypads {
      taken.append(site.keypad(deviceTopic: "d/0", keypad: "k\(n)", present: true))
    }
    #expect(taken.allSatisfy { $0 })
    let oneMore = site.keypad(deviceTopic: "d/0", keypad: "one-more", present: true)
    #expect(!oneMore)
    #expect(site.due(nowMs: Self.t0).count == SiteReplicas.maxDevices)
  }

  @Test func topicsAreClassifiedUnderTheDeviceFilter() {
    let devices = SiteReplicas.deviceFilter(codes: "pinpadd/+/+/code")
    #expect(devices == "pinpadd/+")
    func kind(_ topic: String) -> SiteReplicas.Topic? {
      SiteReplicas.classify(topic, devices: devices)
    }
    #expect(kind("pinpadd/door1/status") == .status(deviceTopic: "pinpadd/door1"))
    #expect(kind("pinpadd/door1/log") == .log(deviceTopic: "pinpadd/door1"))
    #expect(
      kind("pinpadd/door1/front/state")
        == .keypadState(deviceTopic: "pinpadd/door1", keypad: "front"))
    #expect(kind("pinpadd/door1/replica/state") == nil)
    #expect(kind("pinpadd/door1/log/ack") == nil)
    #expect(kind("pinpadd/door1/front/code") == nil)
    #expect(kind("pinpadd/door1/door/main/state") == nil)
    #expect(kind("other/door1/status") == nil)
    // The site's own status is not a device's.
    #expect(kind(SiteTopics.siteStatus) == nil)
    // A level a replica could not name (a control character, over 256 bytes).
    #expect(kind("pinpadd/door\u{7F}/status") == nil)
    #expect(kind("pinpadd/" + String(repeating: "d", count: 257) + "/status") == nil)
    #expect(SiteTopics.deviceName("pinpadd/door1") == "door1")
    let fixed = SiteReplicas.deviceFilter(codes: "site/a/door7/+/code")
    #expect(
      SiteReplicas.classify("site/a/door7/status", devices: fixed)
        == .status(deviceTopic: "site/a/door7"))
  }
}

@Suite struct SiteTopicsTests {
  @Test("the site's and a door's topics, named once for both sides (docs/protocol.md, Replica)")
  func topics() {
    let door = "pinpadd/door1"
    #expect(
      [
        SiteTopics.status(door), SiteTopics.replica(door), SiteTopics.replicaState(door),
        SiteTopics.log(door), SiteTopics.logAck(door), SiteTopics.siteStatus,
      ] == [
        "pinpadd/door1/status", "pinpadd/door1/replica", "pinpadd/door1/replica/state",
        "pinpadd/door1/log", "pinpadd/door1/log/ack", "pinpadd/site/status",
      ])
    #expect(SiteTopics.deviceName("site/a/door1") == "door1")
    #expect(
      SiteReplicas.classify(SiteTopics.log(door), devices: "pinpadd/+") == .log(deviceTopic: door))
    #expect(SiteReplicas.classify(SiteTopics.status(SiteTopics.site), devices: "pinpadd/+") == nil)
  }
}
