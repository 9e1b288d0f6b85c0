import PinpadCore

/// What `pinpadctl mqtt` publishes for the daemon's messages and what it forwards from
/// the broker (docs/protocol.md, "MQTT: topics"). Pure: the shell owns the sockets and
/// the clock.
///
/// State is taken from the daemon's own `status` answers rather than guessed from
/// events: after each message about a keypad the bridge asks for `status`, and
/// publishes a keypad's retained state only when it differs from the last one sent.
/// `code` lines never pass through here: the shell publishes their bytes in place
/// under `codeTopic` and zeroes them.
public struct BridgeCore {
  public enum Action: Equatable, Sendable {
    /// QoS 1 always.
    case publish(topic: String, payload: String, retain: Bool)
    /// A line for the daemon (without its newline).
    case sendToDaemon(String)
    case warn(String)
  }

  /// The retained `TOPIC/KEYPAD/state`.
  public struct KeypadState: Equatable, Sendable {
    public var phase: String
    public var attemptsLeft: Int
    public var lockedSeconds: Int
    public var payload: String {
      JSONValue.object([
        ("phase", .string(phase)), ("attempts_left", .number(Double(attemptsLeft))),
        ("locked_seconds", .number(Double(lockedSeconds))),
      ]).serialized
    }
  }

  public let topic: String
  public let discovery: Bool
  public let discoveryPrefix: String
  public let maxFailures: Int
  public let version: String
  /// The keypads of the configuration (`default` with no `[Keypad]` section): the
  /// daemon's status lists a keypad only once it has had a key, but these exist from
  /// the start, idle, and are announced at once.
  public let configuredKeypads: [String]
  /// The keypad of each code id published lately (at most `rememberedCodes`, oldest
  /// forgotten first): a verdict event finds its topic, and a verdict from MQTT is
  /// forwarded only from the topic of the attempt's own keypad.
  private var keypadOfID: [String: String] = [:]
  private var idOrder: [String] = []
  private var idOrderStart = 0
  private var published: [String: KeypadState] = [:]
  private var announced: Set<String> = []
  /// The doors' retained states and discovery (BridgeDoors.swift).
  var doorsState = BridgeDoorsState()
  /// When to ask for `status` again (a lockout's end), nil when nothing waits.
  public private(set) var nextStatusAt: Instant? = nil
  public static let statusRequest = ClientRequest.statusLine
  /// How many code ids the bridge remembers: far more than the daemon has waiting
  /// (one per keypad) and has settled lately.
  public static let rememberedCodes = 1024
  /// The largest verdict payload read; bigger ones are dropped unparsed
  /// (docs/protocol.md, "MQTT: verdicts").
  public static let maxVerdictPayload = 64 * 1024

  public init(
    topic: String, discovery: Bool, discoveryPrefix: String, maxFailures: Int,
    version: String, keypads: [String] = ["default"]
  ) {
    self.configuredKeypads = keypads
    self.topic = topic
    self.discovery = discovery
    self.discoveryPrefix = discoveryPrefix
    self.maxFailures = maxFailures
    self.version = version
  }

  public var statusTopic: String { topic + "/status" }
  public var verdictFilter: String { topic + "/+/verdict" }

  /// A fresh daemon connection (after each broker connection too): everything retained
  /// is sent again, so the broker holds the truth even if it lost its store.
  public mutating func daemonConnected() -> [Action] {
    published = [:]
    announced = []
    doorsState = BridgeDoorsState()
    nextStatusAt = nil
    return [
      .publish(topic: statusTopic, payload: "online", retain: true),
      .sendToDaemon(BridgeCore.statusRequest),
    ]
  }

  /// The daemon connection is gone: the device is offline until it is back.
  public mutating func daemonLost() -> [Action] {
    nextStatusAt = nil
    return [.publish(topic: statusTopic, payload: "offline", retain: true)]
  }

  /// Where a code from `keypad` goes; remembers `id` for its verdict event.
  public mutating func codeTopic(id: String, keypad: String) -> String {
    remember(id: id, keypad: keypad)
    return "\(topic)/\(MQTTTopic.level(forKeypad: keypad))/code"
  }

  private mutating func remember(id: String, keypad: String) {
    if keypadOfID.updateValue(keypad, forKey: id) == nil { idOrder.append(id) }
    while idOrder.count - idOrderStart > BridgeCore.rememberedCodes {
      keypadOfID[idOrder[idOrderStart]] = nil
      idOrderStart += 1
    }
    if idOrderStart > BridgeCore.rememberedCodes {
      idOrder.removeFirst(idOrderStart)
      idOrderStart = 0
    }
  }

  /// A code line was taken (published, or decided by a door itself): the daemon is asked
  /// for status, so the keypad's retained state says `checking` while the verdict is
  /// awaited (docs/protocol.md, "MQTT: topics").
  public func codeTaken() -> [Action] { [.sendToDaemon(BridgeCore.statusRequest)] }

  /// The keypad of code `id`, while the bridge remembers it.
  public func keypad(ofCode id: String) -> String? { keypadOfID[id] }

  /// One line from the daemon other than `code` (`line` is its text, published as is).
  public mutating func daemonLine(_ line: String, now: Instant) -> [Action] {
    switch DaemonLine.decode(Array(line.utf8)) {
    case .failure(let problem): return [.warn(BridgeCore.describe(problem))]
    case .success(let message): return daemonMessage(message, line: line, now: now)
    }
  }

  /// A line from the daemon, decoded (`DaemonLine`), other than `code` (the shell
  /// publishes those in place under `codeTopic`); `line` is its text, published as is.
  public mutating func daemonMessage(_ message: DaemonLine, line: String, now: Instant)
    -> [Action]
  {
    switch message {
    case .hello, .code:
      return []
    case .status(let value):
      return status(value, now: now)
    case .door(let door, _, _):
      return doorEvent(door, line)
    case .error(let reason):
      return [.warn("the daemon says: \(BridgeCore.withoutIDs(reason))")]
    case .verdict(let id, _, _):
      // The id stays remembered: a second verdict for it is forwarded, so that its
      // sender hears the daemon's "already decided" in the bridge's log.
      guard let keypad = keypadOfID[id] else { return [.sendToDaemon(BridgeCore.statusRequest)] }
      return [event(keypad, line), .sendToDaemon(BridgeCore.statusRequest)]
    case .entry(let keypad, _, _), .lockout(let keypad, _), .keypad(let keypad, _, _, _),
      .alarm(_, let keypad, _), .other(_, let keypad?):
      return [event(keypad, line), .sendToDaemon(BridgeCore.statusRequest)]
    case .other(_, nil):
      return []
    }
  }

  /// The log line for a line from the daemon that was not taken (never quoting it).
  public static func describe(_ problem: DaemonLine.Problem) -> String {
    switch problem {
    case .tooLong:
      return "the daemon sent a line over \(DaemonLine.maxBytes / 1024) KiB; ignored"
    case .notAnObject, .missingType:
      return "the daemon sent a line that is not a JSON object; ignored"
    case .badMember(let type, let member):
      return "the daemon sent a \(type) line without a valid \"\(member)\"; ignored"
    }
  }

  /// `text` with each attempt id (a run of 16 or more hex digits) written as `ID`: the
  /// daemon's errors name the attempt, and the bridge's log carries no id.
  public static func withoutIDs(_ text: String) -> String {
    var out = ""
    var run = ""
    func flush() {
      out += run.count >= 16 ? "ID" : run
      run = ""
    }
    for character in text {
      if character.isHexDigit, character.isASCII, !character.isUppercase {
        run.append(character)
      } else {
        flush()
        out.append(character)
      }
    }
    flush()
    return out
  }

  /// The lockout's end came: ask what the keypads look like now.
  public mutating func tick(now: Instant) -> [Action] {
    guard let due = nextStatusAt, due <= now else { return [] }
    nextStatusAt = nil
    return [.sendToDaemon(BridgeCore.statusRequest)]
  }

  /// Why a message on a verdict topic is ignored before its payload is even read, or
  /// nil: a retained message (published in advance, or left behind) is never a verdict,
  /// and a payload over `maxVerdictPayload` is not parsed.
  public static func refusalBeforeReading(retained: Bool, size: Int) -> RequestError? {
    if retained { return RequestError("a retained message is never taken as a verdict") }
    if size > maxVerdictPayload {
      return RequestError("the payload is over \(maxVerdictPayload / 1024) KiB, dropped unread")
    }
    return nil
  }

  /// A message on `topic` (under `verdictFilter`): the line for the daemon, or why not
  /// (digit-free: neither the id nor the payload is quoted). Forwarded only when the id
  /// is a code this bridge published and `topic` is the verdict topic of that code's
  /// keypad, so a login allowed to answer one keypad cannot answer another.
  public func verdictLine(topic verdictTopic: String, payload: [UInt8]) -> Result<
    String, RequestError
  > {
    let id: String
    let line: String
    switch BridgeCore.verdict(payload: payload) {
    case .failure(let problem): return .failure(problem)
    case .success(let verdict): (id, line) = verdict
    }
    guard let keypad = keypadOfID[id] else {
      return .failure(RequestError("the verdict's id is not a code this bridge sent lately"))
    }
    // Byte for byte, as the broker's ACLs match topics: Swift's == would take a topic
    // that is only canonically equivalent (é as e and a combining accent) for this one.
    let expected = "\(topic)/\(MQTTTopic.level(forKeypad: keypad))/verdict"
    guard verdictTopic.utf8.elementsEqual(expected.utf8) else {
      return .failure(
        RequestError("the verdict is for an attempt on another keypad (\(keypad))"))
    }
    return .success(line)
  }

  /// A verdict payload as a line for the daemon, or why not; its `message` is cleaned
  /// and cut to 200 bytes (on a character boundary; docs/protocol.md, "Socket: verdict"),
  /// so the line always fits the socket's 4096 bytes.
  public static func verdictLine(payload: [UInt8]) -> Result<String, RequestError> {
    verdict(payload: payload).map(\.line)
  }

  private static func verdict(payload: [UInt8]) -> Result<(id: String, line: String), RequestError>
  {
    guard let value = try? JSONValue.parse(payload), case .object = value else {
      return .failure(RequestError("the verdict is not a JSON object"))
    }
    guard let id = value["id"]?.stringValue, !id.isEmpty else {
      return .failure(RequestError("the verdict has no \"id\""))
    }
    guard id.utf8.count <= 128 else {
      return .failure(RequestError("the verdict's \"id\" is longer than 128 bytes"))
    }
    guard let result = value["result"]?.stringValue, result == "granted" || result == "denied"
    else { return .failure(RequestError("the verdict's \"result\" must be granted or denied")) }
    var message: String? = nil
    switch value["message"] {
    case nil, .null?: break
    case .string(let text)?: message = UntrustedText.sanitized(text)
    default: return .failure(RequestError("the verdict's \"message\" must be a string"))
    }
    var duress = false
    switch value["duress"] {
    case nil, .null?, .bool(false)?: break
    case .bool(true)?: duress = true
    default: return .failure(RequestError("the verdict's \"duress\" must be true or false"))
    }
    var reason: String? = nil
    switch value["reason"] {
    case nil, .null?: break
    case .string(let word)? where isReasonWord(word): reason = word
    default:
      return .failure(RequestError("the verdict's \"reason\" must be a word of a-z and _"))
    }
    let request = ClientRequest.verdict(
      id: id, granted: result == "granted", message: message, duress: duress, reason: reason)
    return .success((id, request.line))
  }

  private func event(_ keypad: String, _ line: String) -> Action {
    .publish(
      topic: "\(topic)/\(MQTTTopic.level(forKeypad: keypad))/event", payload: line, retain: false)
  }

  private mutating func status(_ value: JSONValue, now: Instant) -> [Action] {
    guard case .array(let keypads)? = value["keypads"] else { return [] }
    var actions: [Action] = doorStatus(value)
    var soonestUnlock: Int? = nil
    let listed = keypads.compactMap { k in k["name"]?.stringValue.map { ($0, k) } }
    let quiet = configuredKeypads.filter { name in !listed.contains { $0.0 == name } }
    let idle = JSONValue.object([("state", .string("idle"))])
    for (name, keypad) in listed + quiet.map({ ($0, idle) }) {
      let phase = keypad["state"]?.stringValue ?? "idle"
      // Saturated: Int(Double) traps on 1e300, and a subtraction from -9e18 overflows.
      let failures = min(
        max(0, Int(Int64.saturating(keypad["failures"]?.numberValue ?? 0))), maxFailures)
      let locked = Int(Int64.saturating(keypad["locked_seconds"]?.numberValue ?? 0))
      // While locked no attempt is left: digits are ignored until the lockout ends.
      let state = KeypadState(
        phase: phase, attemptsLeft: phase == "locked" ? 0 : maxFailures - failures,
        lockedSeconds: phase == "locked" ? locked : 0)
      if discovery, !announced.contains(name) {
        announced.insert(name)
        actions += discoveryConfigs(keypad: name)
      }
      if published[name] != state {
        published[name] = state
        actions.append(
          .publish(
            topic: "\(topic)/\(MQTTTopic.level(forKeypad: name))/state", payload: state.payload,
            retain: true))
      }
      if phase == "locked" { soonestUnlock = min(soonestUnlock ?? Int.max, max(1, locked)) }
    }
    // Ask again just after the soonest lockout ends (`locked_seconds` is rounded up).
    nextStatusAt = soonestUnlock.map { now + .seconds($0) + .milliseconds(100) }
    return actions
  }

  // MARK: Home Assistant discovery

  /// The node id of this device in discovery topics and unique ids.
  public var node: String { MQTTTopic.identifier(topic) }

  var device: JSONValue {
    .object([
      ("identifiers", .array([.string(node)])),
      ("name", .string("pinpadd \(topic)")),
      ("manufacturer", .string("pinpadd")),
      ("model", .string("pinpadd PIN keypad")),
      ("sw_version", .string(version)),
    ])
  }

  var availability: [(String, JSONValue)] {
    [
      ("availability_topic", .string(statusTopic)),
      ("payload_available", .string("online")),
      ("payload_not_available", .string("offline")),
    ]
  }

  /// The `event_type` of each event payload: entry events by name, verdicts by result
  /// (`no_response` for the daemon's timeout), keypads `added`/`removed`, and
  /// `lockout` or `alarm` for those messages.
  public static let eventTypes = [
    "started", "changed", "deleted", "cleared", "timeout", "rejected", "card_read", "granted",
    "denied", "no_response", "lockout", "added", "removed", "alarm",
  ]

  static let eventTemplate =
    "{% set v = value_json %}{% if v.type == 'entry' or v.type == 'keypad' %}"
    + "{% set e = v.event %}{% elif v.type == 'verdict' %}"
    + "{% set e = 'no_response' if v.result == 'timeout' else v.result %}"
    + "{% else %}{% set e = v.type %}{% endif %}{{ {'event_type': e} | tojson }}"

  /// Retained discovery configs for one keypad: an event entity and a phase sensor.
  public func discoveryConfigs(keypad: String) -> [Action] {
    let level = MQTTTopic.level(forKeypad: keypad)
    let id = MQTTTopic.identifier(level)
    let event = JSONValue.object(
      [
        ("name", .string("\(keypad) keypad")),
        ("unique_id", .string("\(node)_\(id)_event")),
        ("object_id", .string("\(node)_\(id)")),
        ("state_topic", .string("\(topic)/\(level)/event")),
        ("event_types", .array(BridgeCore.eventTypes.map { .string($0) })),
        ("value_template", .string(BridgeCore.eventTemplate)),
        ("qos", .number(1)),
      ] + availability + [("device", device)])
    let sensor = JSONValue.object(
      [
        ("name", .string("\(keypad) phase")),
        ("unique_id", .string("\(node)_\(id)_phase")),
        ("object_id", .string("\(node)_\(id)_phase")),
        ("state_topic", .string("\(topic)/\(level)/state")),
        ("value_template", .string("{{ value_json.phase }}")),
        ("json_attributes_topic", .string("\(topic)/\(level)/state")),
        ("icon", .string("mdi:dialpad")),
        ("qos", .number(1)),
      ] + availability + [("device", device)])
    return [
      .publish(
        topic: "\(discoveryPrefix)/event/\(node)/\(id)/config", payload: event.serialized,
        retain: true),
      .publish(
        topic: "\(discoveryPrefix)/sensor/\(node)/\(id)_phase/config", payload: sensor.serialized,
        retain: true),
    ]
  }
}
