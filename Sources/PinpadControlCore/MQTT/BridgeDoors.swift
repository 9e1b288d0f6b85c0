import PinpadCore

/// The doors on MQTT (docs/protocol.md, "MQTT: door topics"): `TOPIC/door/NAME/event`
/// (each `door` message as is), a retained `TOPIC/door/NAME/state`
/// `{"lock":...,"contact":...}` taken from the daemon's `status` answers, and `open`
/// taken on `TOPIC/door/NAME/command` (broker ACLs decide who may publish there). With
/// discovery, a Home Assistant lock entity per door and a door binary sensor for a door
/// with a contact.
extension BridgeCore {
  public var doorCommandFilter: String { topic + "/door/+/command" }

  func doorTopic(_ door: String, _ leaf: String) -> String { "\(topic)/door/\(door)/\(leaf)" }

  /// A `door` message: published on its door's event topic; its state follows from the
  /// `status` asked for.
  func doorEvent(_ door: String, _ line: String) -> [Action] {
    guard DoorConfig.isValidName(door) else { return [] }
    return [
      .publish(topic: doorTopic(door, "event"), payload: line, retain: false),
      .sendToDaemon(BridgeCore.statusRequest),
    ]
  }

  /// The retained state of each door in a `status` answer whose state changed, after
  /// its discovery configs the first time.
  mutating func doorStatus(_ value: JSONValue) -> [Action] {
    guard case .array(let doors)? = value["doors"] else { return [] }
    var actions: [Action] = []
    for door in doors {
      guard let name = door["name"]?.stringValue, DoorConfig.isValidName(name) else { continue }
      let lock = door["lock"]?.stringValue ?? "unknown"
      let contact = door["contact"]?.stringValue ?? "none"
      let payload = JSONValue.object([("lock", .string(lock)), ("contact", .string(contact))])
        .serialized
      if discovery, !doorsState.announced.contains(name) {
        doorsState.announced.insert(name)
        actions += doorDiscoveryConfigs(door: name, hasContact: contact != "none")
      }
      if doorsState.published[name] != payload {
        doorsState.published[name] = payload
        actions.append(.publish(topic: doorTopic(name, "state"), payload: payload, retain: true))
      }
    }
    return actions
  }

  /// A message on `TOPIC/door/NAME/command`: the line for the daemon, or why not.
  /// `open` (any case, or `{"type":"open"}`) opens; nothing else is a command (a door
  /// locks by itself after OpenSec).
  public func doorCommandLine(topic commandTopic: String, payload: [UInt8]) -> Result<
    String, RequestError
  > {
    let prefix = topic + "/door/"
    guard commandTopic.hasPrefix(prefix), commandTopic.hasSuffix("/command") else {
      return .failure(RequestError("not a door command topic"))
    }
    let door = String(commandTopic.dropFirst(prefix.count).dropLast("/command".count))
    guard DoorConfig.isValidName(door) else {
      return .failure(RequestError("not a door name"))
    }
    guard payload.count <= 64 else { return .failure(RequestError("the command is over 64 bytes")) }
    let text = String(decoding: payload, as: UTF8.self)
    let word = text.split(whereSeparator: \.isWhitespace).joined()
    let isOpen =
      word.lowercased() == "open"
      || (try? JSONValue.parse(payload))?["type"]?.stringValue == "open"
    guard isOpen else {
      return .failure(RequestError("the only door command is open"))
    }
    return .success(ClientRequest.open(door: door).line)
  }

  /// Retained discovery configs for one door: a lock (unlock and open send `open`) and,
  /// with a contact, a binary sensor of device class door.
  public func doorDiscoveryConfigs(door: String, hasContact: Bool) -> [Action] {
    let id = "door_" + MQTTTopic.identifier(door)
    let lock = JSONValue.object(
      [
        ("name", .string("\(door) door lock")),
        ("unique_id", .string("\(node)_\(id)_lock")),
        ("object_id", .string("\(node)_\(id)_lock")),
        ("command_topic", .string(doorTopic(door, "command"))),
        ("state_topic", .string(doorTopic(door, "state"))),
        ("value_template", .string("{{ value_json.lock }}")),
        ("state_locked", .string("locked")),
        ("state_unlocked", .string("unlocked")),
        ("payload_unlock", .string("open")),
        ("payload_open", .string("open")),
        ("payload_lock", .string("lock")),
        ("qos", .number(1)),
      ] + availability + [("device", device)])
    var actions: [Action] = [
      .publish(
        topic: "\(discoveryPrefix)/lock/\(node)/\(id)/config", payload: lock.serialized,
        retain: true)
    ]
    if hasContact {
      let sensor = JSONValue.object(
        [
          ("name", .string("\(door) door")),
          ("unique_id", .string("\(node)_\(id)_contact")),
          ("object_id", .string("\(node)_\(id)_contact")),
          ("device_class", .string("door")),
          ("state_topic", .string(doorTopic(door, "state"))),
          ("value_template", .string("{{ value_json.contact }}")),
          ("payload_on", .string("open")),
          ("payload_off", .string("closed")),
          ("qos", .number(1)),
        ] + availability + [("device", device)])
      actions.append(
        .publish(
          topic: "\(discoveryPrefix)/binary_sensor/\(node)/\(id)_contact/config",
          payload: sensor.serialized, retain: true))
    }
    return actions
  }
}

/// What the bridge has said about the doors: reset with every daemon connection.
struct BridgeDoorsState: Sendable {
  var published: [String: String] = [:]
  var announced: Set<String> = []
}
