/// Every `[Door]` of the configuration, beside the Session: what the socket and the
/// shell's lines bring in, relay levels, `door` messages and log lines out.
public struct Doors: Sendable {
  public enum Effect: Equatable, Sendable {
    /// Drive `door`'s relay to this logical lock state.
    case relay(door: String, unlocked: Bool)
    /// A `door` message for every client.
    case broadcast(OutgoingMessage)
    case log(LogLevel, String)
  }

  public private(set) var machines: [DoorMachine]

  public init(_ config: [DoorConfig]) { machines = config.map(DoorMachine.init) }

  public var isEmpty: Bool { machines.isEmpty }
  public func machine(_ name: String) -> DoorMachine? { machines.first { $0.name == name } }

  public var nextDeadline: Instant? {
    var earliest: Instant? = nil
    for machine in machines {
      if let d = machine.nextDeadline, earliest.map({ d < $0 }) ?? true { earliest = d }
    }
    return earliest
  }

  /// The Session's `attemptGranted`: every door of that keypad opens.
  public mutating func granted(id: String, keypad: String, now: Instant) -> [Effect] {
    each { $0.granted(id: id, keypad: keypad, now: now) }
  }

  /// A client's `open`; nil when no door has that name.
  public mutating func remoteOpen(door: String, now: Instant) -> [Effect]? {
    guard machines.contains(where: { $0.name == door }) else { return nil }
    return one(door) { $0.remoteOpen(now: now) }
  }

  public mutating func line(
    door: String, _ input: DoorMachine.Input, active: Bool, now: Instant
  ) -> [Effect] {
    one(door) { $0.line(input, active: active, now: now) }
  }

  public mutating func linesAcquired(
    door: String, contactActive: Bool?, exitActive: Bool?, now: Instant
  ) -> [Effect] {
    one(door) { $0.linesAcquired(contactActive: contactActive, exitActive: exitActive, now: now) }
  }

  public mutating func linesLost(door: String, reason: String) -> [Effect] {
    one(door) { $0.linesLost(reason: reason) }
  }

  public mutating func tick(now: Instant) -> [Effect] { each { $0.tick(now: now) } }

  /// The shell's answer to `relay`: the chip took the level at `now`.
  public mutating func relayDriven(door: String, unlocked: Bool, now: Instant) {
    guard let index = machines.firstIndex(where: { $0.name == door }) else { return }
    machines[index].relayDriven(unlocked: unlocked, now: now)
  }

  /// The `doors` member of a `status` answer.
  public var status: JSONValue {
    .array(
      machines.map { door in
        let lock = door.linesHeld ? (door.isUnlocked ? "unlocked" : "locked") : "unknown"
        return .object([
          ("name", .string(door.name)), ("lock", .string(lock)),
          ("contact", .string(door.contact.rawValue)), ("forced", .bool(door.forced)),
          ("lines", .string(door.linesHeld ? "ok" : "lost")),
        ])
      })
  }

  private mutating func each(_ body: (inout DoorMachine) -> [DoorMachine.Action]) -> [Effect] {
    var out: [Effect] = []
    for index in machines.indices {
      let actions = body(&machines[index])
      out += Self.effects(actions, door: machines[index].name)
    }
    return out
  }

  private mutating func one(_ door: String, _ body: (inout DoorMachine) -> [DoorMachine.Action])
    -> [Effect]
  {
    guard let index = machines.firstIndex(where: { $0.name == door }) else { return [] }
    return Self.effects(body(&machines[index]), door: door)
  }

  static func effects(_ actions: [DoorMachine.Action], door: String) -> [Effect] {
    actions.flatMap { action -> [Effect] in
      switch action {
      case .relay(let unlocked): return [.relay(door: door, unlocked: unlocked)]
      case .log(let level, let line): return [.log(level, line)]
      case .event(let event, let by):
        var out: [Effect] = [.broadcast(.door(door, event: event, by: by))]
        let who = by.map { " by \($0.text)" } ?? ""
        out.append(.log(.info, "door \(door): \(event.rawValue)\(who)"))
        return out
      }
    }
  }
}

extension DaemonMessage {
  /// `{"type":"door","door":NAME,"event":EVENT[,"by":ID|exit|remote]}` (docs/protocol.md,
  /// "Socket: door").
  public static func door(_ door: String, event: String, by: String?) -> String {
    text { self.door(door, event: event, by: by, into: &$0) }
  }

  public static func door(_ door: String, event: String, by: String?, into storage: inout [UInt8]) {
    var out = JSONLine(type: "door", reusing: &storage)
    out.string("door", door)
    out.string("event", event)
    if let by { out.string("by", by) }
    out.finish(into: &storage)
  }
}
