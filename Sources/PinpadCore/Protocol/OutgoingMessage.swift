/// A line the daemon sends its clients (SPEC §4.2), as a value: the `Session` and the
/// `Doors` say what to send, the shell turns it into bytes (`line`, or `OutgoingLines`
/// for the per-key path) where it writes to the socket. None carries a code or a card:
/// `code` lines are written by `DaemonMessage.appendCode` alone.
public enum OutgoingMessage: Equatable, Sendable {
  /// `{"type":"entry","keypad":...,"event":...,"length":N}`.
  case entry(keypad: String, event: EntryEvent, length: Int)
  /// `{"type":"keypad","keypad":...,"event":"added|removed","device":...,"role":...}`.
  case keypad(name: String, added: Bool, device: String, role: DeviceRole)
  /// `{"type":"verdict","id":...,"result":...[,"reason":...]}`.
  case verdict(id: String, result: VerdictResult, reason: String? = nil)
  /// `{"type":"lockout","keypad":...,"seconds":N}`.
  case lockout(keypad: String, seconds: Int)
  /// `{"type":"alarm","reason":...,"keypad":...,"id":...}` (SPEC §9.2).
  case alarm(reason: String, keypad: String, id: String)
  /// `{"type":"door","door":...,"event":...[,"by":...]}` (SPEC §10).
  case door(String, event: DoorMachine.Event, by: DoorMachine.Opener?)
  /// `{"type":"error","reason":...}`.
  case error(String)
  /// `{"type":"status",...}`: the answer to a `status` request.
  case status(StatusReport)

  /// The line with its newline, byte for byte as `DaemonMessage` writes it.
  public var line: String {
    switch self {
    case .entry(let keypad, let event, let length):
      DaemonMessage.entry(keypad: keypad, event: event, length: length)
    case .keypad(let name, let added, let device, let role):
      DaemonMessage.keypad(name: name, added: added, device: device, role: role)
    case .verdict(let id, let result, let reason):
      DaemonMessage.verdict(id: id, result: result.rawValue, reason: reason)
    case .lockout(let keypad, let seconds): DaemonMessage.lockout(keypad: keypad, seconds: seconds)
    case .alarm(let reason, let keypad, let id):
      DaemonMessage.alarm(reason: reason, keypad: keypad, id: id)
    case .door(let door, let event, let by):
      DaemonMessage.door(door, event: event.rawValue, by: by?.text)
    case .error(let reason): DaemonMessage.error(reason)
    case .status(let report): DaemonMessage.status(report.fields)
    }
  }
}

/// The `result` of a `verdict` event.
public enum VerdictResult: String, Equatable, Sendable, CaseIterable {
  case granted, denied
  /// No verdict came within VerdictTimeoutSec (SPEC §4.4).
  case timeout
}

/// What a `status` answer says: names, phases, lengths and counts, never a digit.
public struct StatusReport: Equatable, Sendable {
  public struct Keypad: Equatable, Sendable {
    public var name: String
    public var phase: EntryPhase
    public var length: Int
    /// Denials counted towards a lockout; nil while locked (the count starts again with
    /// a lockout, so a 0 would mislead).
    public var failures: Int?
    /// Whole seconds of lockout left, rounded up; 0 when not locked.
    public var lockedSeconds: Int
    public init(name: String, phase: EntryPhase, length: Int, failures: Int?, lockedSeconds: Int) {
      self.name = name
      self.phase = phase
      self.length = length
      self.failures = failures
      self.lockedSeconds = lockedSeconds
    }
  }

  public var version: String
  public var keypads: [Keypad]
  public var inputs: [String]
  public var clients: Int
  public var queuedBytes: Int
  public var lockoutsSaved: Bool
  /// Attempts waiting for a client or a verdict.
  public var pending: Int
  /// The `doors` member (`Doors.status`), nil with no `[Door]`.
  public var doors: JSONValue?

  public init(
    version: String, keypads: [Keypad], inputs: [String], clients: Int, queuedBytes: Int,
    lockoutsSaved: Bool, pending: Int, doors: JSONValue?
  ) {
    self.version = version
    self.keypads = keypads
    self.inputs = inputs
    self.clients = clients
    self.queuedBytes = queuedBytes
    self.lockoutsSaved = lockoutsSaved
    self.pending = pending
    self.doors = doors
  }

  /// The members after `type`, in the order of the line.
  var fields: [(String, JSONValue)] {
    let keypads: [JSONValue] = keypads.map { keypad in
      var fields: [(String, JSONValue)] = [
        ("name", .string(keypad.name)), ("state", .string(keypad.phase.name)),
        ("length", .number(Double(keypad.length))),
      ]
      if let failures = keypad.failures { fields.append(("failures", .number(Double(failures)))) }
      fields.append(("locked_seconds", .number(Double(keypad.lockedSeconds))))
      return .object(fields)
    }
    let doors: [(String, JSONValue)] = self.doors.map { [("doors", $0)] } ?? []
    return [
      ("version", .string(version)),
      ("keypads", .array(keypads)),
      ("inputs", .array(inputs.map { .string($0) })),
      ("clients", .number(Double(clients))),
      ("queued_bytes", .number(Double(queuedBytes))),
      ("lockouts_saved", .bool(lockoutsSaved)),
      ("pending", .number(Double(pending))),
    ] + doors
  }
}

/// The shell's encoder of `OutgoingMessage`s. `entry` lines, sent for nearly every key,
/// are built once per keypad, event and length and handed out again (they hold a
/// length, never a digit), so a key costs no new String; other lines are built each time.
public struct OutgoingLines {
  private var entries: [EntryKey: String] = [:]

  public init() {}

  public mutating func line(_ message: OutgoingMessage) -> String {
    guard case .entry(let keypad, let event, let length) = message else { return message.line }
    let key = EntryKey(keypad: keypad, event: event, length: length)
    if let line = entries[key] { return line }
    let line = message.line
    // Bounded: keypads x events x lengths up to the capacity, and `forget` on a reload.
    if entries.count >= 4096 { entries = [:] }
    entries[key] = line
    return line
  }

  /// Drops the lines kept (a reload: keypads may be gone for good).
  public mutating func forget() { entries = [:] }

  private struct EntryKey: Hashable {
    var keypad: String
    var event: EntryEvent
    var length: Int
  }
}
