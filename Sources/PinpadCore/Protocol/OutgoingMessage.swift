/// A line the daemon sends its clients (docs/protocol.md, "Socket"), as a value: the
/// `Session` and the `Doors` say what to send, the shell turns it into bytes (`line`, or
/// `OutgoingLines` for the per-key path) where it writes to the socket. None carries a
/// code or a card: `code` lines are written by `DaemonMessage.appendCode` alone.
public enum OutgoingMessage: Equatable, Sendable {
  /// `{"type":"entry","keypad":...,"event":...,"length":N}`.
  case entry(keypad: String, event: EntryEvent, length: Int)
  /// `{"type":"keypad","keypad":...,"event":"added|removed","device":...,"role":...}`.
  case keypad(name: String, added: Bool, device: String, role: DeviceRole)
  /// `{"type":"verdict","id":...,"result":...[,"reason":...]}`.
  case verdict(id: String, result: VerdictResult, reason: String? = nil)
  /// `{"type":"lockout","keypad":...,"seconds":N}`.
  case lockout(keypad: String, seconds: Int)
  /// `{"type":"alarm","reason":...,"keypad":...,"id":...}` (docs/protocol.md, "Socket:
  /// alarm").
  case alarm(reason: String, keypad: String, id: String)
  /// `{"type":"door","door":...,"event":...[,"by":...]}` (docs/protocol.md, "Socket: door").
  case door(String, event: DoorMachine.Event, by: DoorMachine.Opener?)
  /// `{"type":"error","reason":...}`.
  case error(String)
  /// `{"type":"status",...}`: the answer to a `status` request.
  case status(StatusReport)

  /// The line with its newline, byte for byte as `DaemonMessage` writes it.
  public var line: String { DaemonMessage.text { encode(into: &$0) } }

  /// Writes the line with its newline into `storage` (emptied first, its capacity kept).
  public func encode(into storage: inout [UInt8]) {
    switch self {
    case .entry(let keypad, let event, let length):
      DaemonMessage.entry(keypad: keypad, event: event, length: length, into: &storage)
    case .keypad(let name, let added, let device, let role):
      DaemonMessage.keypad(name: name, added: added, device: device, role: role, into: &storage)
    case .verdict(let id, let result, let reason):
      DaemonMessage.verdict(id: id, result: result, reason: reason, into: &storage)
    case .lockout(let keypad, let seconds):
      DaemonMessage.lockout(keypad: keypad, seconds: seconds, into: &storage)
    case .alarm(let reason, let keypad, let id):
      DaemonMessage.alarm(reason: reason, keypad: keypad, id: id, into: &storage)
    case .door(let door, let event, let by):
      DaemonMessage.door(door, event: event.rawValue, by: by?.text, into: &storage)
    case .error(let reason): DaemonMessage.error(reason, into: &storage)
    case .status(let report):
      storage.removeAll(keepingCapacity: true)
      storage.append(contentsOf: DaemonMessage.status(report.fields).utf8)
    }
  }
}

/// The `result` of a `verdict` event.
public enum VerdictResult: String, Equatable, Sendable, CaseIterable {
  case granted, denied
  /// No verdict came within VerdictTimeoutSec (docs/protocol.md, "Socket: delivery").
  case timeout

  /// `rawValue` as a literal, for the line's bytes.
  public var word: StaticString {
    switch self {
    case .granted: "granted"
    case .denied: "denied"
    case .timeout: "timeout"
    }
  }
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

/// The shell's encoder of `OutgoingMessage`s, with no allocation per key once warm.
/// `entry` lines, sent for nearly every key, are built once per keypad, event and length
/// and handed out again (they hold a length, never a digit); every other line is written
/// into one buffer that is reused.
public struct OutgoingLines {
  /// Entry lines by length (0 through `SecretDigits.capacity`), each list one line per
  /// keypad and event seen at that length: a look-up compares a few names, no hashing.
  private var entries: [[EntryLine]] = []
  private var entryCount = 0
  private var scratch: [UInt8] = []

  public init() {}

  /// Calls `body` with the bytes of `message`'s line (valid during the call only).
  public mutating func withLine<R>(
    _ message: OutgoingMessage, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
  ) rethrows -> R {
    guard case .entry(let keypad, let event, let length) = message,
      length >= 0 && length <= SecretDigits.capacity
    else {
      message.encode(into: &scratch)
      return try scratch.withUnsafeBufferPointer(body)
    }
    if !entries.isEmpty {
      // By index: a line is read in place, not copied (and its name and bytes retained).
      for i in entries[length].indices
      where entries[length][i].event == event && entries[length][i].keypad == keypad {
        return try entries[length][i].bytes.withUnsafeBufferPointer(body)
      }
    }
    var bytes: [UInt8] = []
    message.encode(into: &bytes)
    // Bounded: keypads x events x lengths, and `forget` on a reload.
    if entryCount >= 4096 { forget() }
    if entries.isEmpty {
      entries = [[EntryLine]](repeating: [], count: SecretDigits.capacity + 1)
    }
    entries[length].append(EntryLine(keypad: keypad, event: event, bytes: bytes))
    entryCount += 1
    return try bytes.withUnsafeBufferPointer(body)
  }

  /// `message`'s line as a String.
  public mutating func line(_ message: OutgoingMessage) -> String {
    withLine(message) { String(decoding: $0, as: UTF8.self) }
  }

  /// Drops the lines kept (a reload: keypads may be gone for good).
  public mutating func forget() {
    entries = []
    entryCount = 0
  }

  private struct EntryLine {
    var keypad: String
    var event: EntryEvent
    var bytes: [UInt8]
  }
}
