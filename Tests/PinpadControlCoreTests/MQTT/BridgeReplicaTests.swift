import PinpadCore
import Testing

@testable import PinpadControlCore

/// What a door deciding locally publishes about its replica (docs/protocol.md, "Replica:
/// the door", "MQTT: Home Assistant discovery").
@Suite struct BridgeReplicaTests {
  @Test func theStateIsTheDocumentedObject() {
    #expect(
      BridgeCore.replicaState(generation: 42, ageSeconds: 61, people: 3, logPending: 2)
        == #"{"generation":42,"age_s":61,"people":3,"log_pending":2}"#)
  }

  @Test func aChangeOfAgeAloneIsNoChange() {
    let a = BridgeCore.replicaState(generation: 4, ageSeconds: 1, people: 3, logPending: 0)
    let b = BridgeCore.replicaState(generation: 4, ageSeconds: 59, people: 3, logPending: 0)
    let c = BridgeCore.replicaState(generation: 4, ageSeconds: 59, people: 3, logPending: 1)
    #expect(BridgeCore.replicaStateWithoutAge(a) == BridgeCore.replicaStateWithoutAge(b))
    #expect(BridgeCore.replicaStateWithoutAge(b) != BridgeCore.replicaStateWithoutAge(c))
  }

  @Test func homeAssistantGetsARetainedSensorOfTheAgeOnTheStateTopic() throws {
    let core = BridgeCore(
      topic: "pinpadd/door1", discovery: true, discoveryPrefix: "homeassistant", maxFailures: 5,
      version: "1.0")
    guard case .publish(let topic, let payload, let retain) = core.replicaAgeDiscoveryConfig()
    else {
      Issue.record("not a publish")
      return
    }
    #expect(topic == "homeassistant/sensor/pinpadd_door1/replica_age/config")
    #expect(retain)
    let config = try JSONValue.parse(Array(payload.utf8))
    #expect(config["state_topic"]?.stringValue == "pinpadd/door1/replica/state")
    #expect(config["value_template"]?.stringValue == "{{ value_json.age_s }}")
    #expect(config["unit_of_measurement"]?.stringValue == "s")
    #expect(config["availability_topic"]?.stringValue == "pinpadd/door1/status")
  }
}
