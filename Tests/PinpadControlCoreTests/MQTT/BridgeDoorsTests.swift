import PinpadCore
import Testing

@testable import PinpadControlCore

private func core(discovery: Bool = true) -> BridgeCore {
  BridgeCore(
    topic: "pinpadd/site", discovery: discovery, discoveryPrefix: "homeassistant",
    maxFailures: 5, version: "1.0", keypads: [])
}

private func status(_ doors: [(String, String, String)]) -> String {
  JSONValue.object([
    ("type", .string("status")), ("keypads", .array([])),
    (
      "doors",
      .array(
        doors.map {
          .object([("name", .string($0.0)), ("lock", .string($0.1)), ("contact", .string($0.2))])
        })
    ),
  ]).serialized
}

private func publishes(_ actions: [BridgeCore.Action]) -> [(
  topic: String, payload: String, retain: Bool
)] {
  actions.compactMap {
    if case .publish(let topic, let payload, let retain) = $0 { return (topic, payload, retain) }
    return nil
  }
}

/// Doors on MQTT (docs/protocol.md, "MQTT: door topics"): door events, the retained door
/// state, `open` commands, discovery.
@Suite struct BridgeDoorsTests {
  @Test func aDoorMessageGoesToItsEventTopicAndAsksForTheState() {
    var bridge = core()
    let line = #"{"type":"door","door":"front","event":"unlocked","by":"ab-1"}"#
    let actions = bridge.daemonLine(line, now: .zero)
    #expect(publishes(actions).map(\.topic) == ["pinpadd/site/door/front/event"])
    #expect(publishes(actions).first?.payload == line && publishes(actions).first?.retain == false)
    #expect(actions.contains(.sendToDaemon(BridgeCore.statusRequest)))
  }

  @Test func theStateIsRetainedAndPublishedOnlyWhenItChanges() {
    var bridge = core(discovery: false)
    let first = publishes(bridge.daemonLine(status([("front", "locked", "closed")]), now: .zero))
    #expect(first.map(\.topic) == ["pinpadd/site/door/front/state"])
    #expect(
      first.first?.payload == #"{"lock":"locked","contact":"closed"}"#
        && first.first?.retain == true)
    #expect(
      publishes(bridge.daemonLine(status([("front", "locked", "closed")]), now: .zero)).isEmpty)
    let changed = publishes(
      bridge.daemonLine(status([("front", "unlocked", "closed")]), now: .zero))
    #expect(changed.first?.payload == #"{"lock":"unlocked","contact":"closed"}"#)
  }

  @Test func discoveryAnnouncesALockAndADoorSensorOncePerDoor() {
    var bridge = core()
    let topics = publishes(
      bridge.daemonLine(
        status([("front", "locked", "closed"), ("back", "locked", "none")]), now: .zero)
    ).map(\.topic)
    #expect(topics.contains("homeassistant/lock/pinpadd_site/door_front/config"))
    #expect(topics.contains("homeassistant/binary_sensor/pinpadd_site/door_front_contact/config"))
    #expect(topics.contains("homeassistant/lock/pinpadd_site/door_back/config"))
    #expect(
      !topics.contains("homeassistant/binary_sensor/pinpadd_site/door_back_contact/config"),
      "no contact, no sensor")
    let again = publishes(bridge.daemonLine(status([("front", "unlocked", "closed")]), now: .zero))
      .map(\.topic)
    #expect(again == ["pinpadd/site/door/front/state"])
    let lock = bridge.doorDiscoveryConfigs(door: "front", hasContact: false)
    guard case .publish(_, let payload, true) = lock[0],
      let config = try? JSONValue.parse(Array(payload.utf8))
    else {
      Issue.record("no retained lock config")
      return
    }
    #expect(config["command_topic"]?.stringValue == "pinpadd/site/door/front/command")
    #expect(config["payload_unlock"]?.stringValue == "open")
    #expect(config["state_topic"]?.stringValue == "pinpadd/site/door/front/state")
  }

  @Test(arguments: ["open", "OPEN", " open\n", #"{"type":"open"}"#])
  func openOnTheCommandTopicBecomesAnOpenRequest(payload: String) {
    let line = core().doorCommandLine(
      topic: "pinpadd/site/door/front/command", payload: Array(payload.utf8))
    #expect(line == .success(#"{"type":"open","door":"front"}"#))
  }

  @Test(arguments: [
    ("pinpadd/site/door/front/command", "lock"),
    ("pinpadd/site/door/front/command", "unlock please"),
    ("pinpadd/site/door/front/command", String(repeating: "open", count: 20)),
    ("pinpadd/site/door/a b/command", "open"),
    ("pinpadd/other/door/front/command", "open"),
  ])
  func anythingElseIsRefused(topic: String, payload: String) {
    if case .success = core().doorCommandLine(topic: topic, payload: Array(payload.utf8)) {
      Issue.record("\(topic) \(payload) accepted")
    }
  }

  @Test("a command is at most 64 bytes (pinpadctl(1)): open padded to 64 opens, to 65 is refused")
  func aCommandIsAtMost64Bytes() {
    let topic = "pinpadd/site/door/front/command"
    let fits = Array(("open" + String(repeating: " ", count: 60)).utf8)
    let over = Array(("open" + String(repeating: " ", count: 61)).utf8)
    #expect(
      core().doorCommandLine(topic: topic, payload: fits)
        == .success(#"{"type":"open","door":"front"}"#))
    #expect(
      core().doorCommandLine(topic: topic, payload: over)
        == .failure(RequestError("the command is over 64 bytes")))
  }

  @Test func theCommandFilterIsUnderTheDeviceTopic() {
    #expect(core().doorCommandFilter == "pinpadd/site/door/+/command")
  }
}
