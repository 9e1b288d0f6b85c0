import PinpadCore

/// What a door deciding locally publishes about its replica (docs/protocol.md, "Replica:
/// the door's state"): the retained `TOPIC/replica/state` and a Home Assistant sensor of
/// the replica's age.
extension BridgeCore {
  /// `{"generation":N,"age_s":N,"people":N,"log_pending":N}`.
  public static func replicaState(
    generation: UInt64, ageSeconds: Int, people: Int, logPending: Int
  ) -> String {
    JSONValue.object([
      ("generation", .number(Double(generation))), ("age_s", .number(Double(ageSeconds))),
      ("people", .number(Double(people))), ("log_pending", .number(Double(logPending))),
    ]).serialized
  }

  /// The state without its age, to tell a change from the clock's going on.
  public static func replicaStateWithoutAge(_ state: String) -> String {
    guard let value = try? JSONValue.parse(Array(state.utf8)) else { return state }
    return ["generation", "people", "log_pending"].map { "\(value[$0]?.numberValue ?? -1)" }
      .joined(separator: ",")
  }

  /// The retained discovery config of the replica's age: a sensor (seconds) on
  /// `TOPIC/replica/state`, its whole state as attributes.
  public func replicaAgeDiscoveryConfig() -> Action {
    let state = "\(topic)/replica/state"
    let sensor = JSONValue.object(
      [
        ("name", .string("replica age")),
        ("unique_id", .string("\(node)_replica_age")),
        ("object_id", .string("\(node)_replica_age")),
        ("state_topic", .string(state)),
        ("value_template", .string("{{ value_json.age_s }}")),
        ("json_attributes_topic", .string(state)),
        ("device_class", .string("duration")),
        ("unit_of_measurement", .string("s")),
        ("qos", .number(1)),
      ] + availability + [("device", device)])
    return .publish(
      topic: "\(discoveryPrefix)/sensor/\(node)/replica_age/config", payload: sensor.serialized,
      retain: true)
  }
}
