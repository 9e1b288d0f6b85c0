import PinpadCore

/// One decision a door took itself, as it goes to the site on `DEVICE_TOPIC/log`
/// (docs/protocol.md, "Replica: the door's log"): never a code or a card.
public struct LogEntry: Equatable, Sendable {
  /// The door's log id (`LogCursor.logID`).
  public var log: String
  /// 1, 2, 3 ... in the order the door took the decisions.
  public var seq: UInt64
  /// Milliseconds since the epoch, the door's clock.
  public var atMs: Int64
  public var device: String
  public var keypad: String
  /// The matching line's name; nil when no line matched.
  public var person: String?
  public var granted: Bool
  /// The denial's reason (docs/protocol.md, "Socket: denial reasons"); nil for a grant.
  public var reason: String?
  public var duress: Bool

  public init(
    log: String, seq: UInt64, atMs: Int64, device: String, keypad: String, person: String?,
    granted: Bool, reason: String?, duress: Bool
  ) {
    self.log = log
    self.seq = seq
    self.atMs = atMs
    self.device = device
    self.keypad = keypad
    self.person = person
    self.granted = granted
    self.reason = reason
    self.duress = duress
  }

  /// `{"log":ID,"seq":N,"at":TIME,"device":D,"keypad":K,"person":NAME|null,
  /// "result":"granted|denied","reason":WORD|null,"duress":BOOL}`.
  public var json: String {
    JSONValue.object([
      ("log", .string(log)), ("seq", .number(Double(seq))),
      ("at", .string(String(decoding: UTCTime.text(ms: atMs), as: UTF8.self))),
      ("device", .string(device)), ("keypad", .string(keypad)),
      ("person", person.map(JSONValue.string) ?? .null),
      ("result", .string(granted ? "granted" : "denied")),
      ("reason", reason.map(JSONValue.string) ?? .null), ("duress", .bool(duress)),
    ]).serialized
  }

  /// Longest device, keypad or person name taken (bytes).
  public static let maxNameBytes = 256

  /// The entry in a `log` message, nil when it is not one: every member present with its
  /// type, the log id 32 lowercase hex digits, seq from 1 to 2^53, names of 1 to 256
  /// bytes, a grant without a reason and a denial with one (a word of `a-z` and `_`).
  public init?(json bytes: some Collection<UInt8>) {
    guard let value = try? JSONValue.parse(bytes), case .object = value else { return nil }
    func name(_ key: String) -> String? {
      guard let text = value[key]?.stringValue, !text.isEmpty,
        text.utf8.count <= LogEntry.maxNameBytes
      else { return nil }
      return text
    }
    guard let log = value["log"]?.stringValue, LogCursor.isLogID(log),
      let seq = value["seq"].flatMap(LogCursor.sequenceNumber),
      let atText = value["at"]?.stringValue, let at = UTCTime.ms(Array(atText.utf8)),
      let device = name("device"), let keypad = name("keypad"),
      let result = value["result"]?.stringValue, result == "granted" || result == "denied",
      let duress = value["duress"]?.boolValue, let personValue = value["person"],
      let reasonValue = value["reason"]
    else { return nil }
    let person: String?
    switch personValue {
    case .null: person = nil
    case .string:
      guard let text = name("person") else { return nil }
      person = text
    default: return nil
    }
    let reason: String?
    switch (result, reasonValue) {
    case ("granted", .null): reason = nil
    case ("denied", .string(let word)):
      guard !word.isEmpty, word.utf8.count <= 32,
        word.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x5F })
      else { return nil }
      reason = word
    default: return nil
    }
    self.init(
      log: log, seq: seq, atMs: at, device: device, keypad: keypad, person: person,
      granted: result == "granted", reason: reason, duress: duress)
  }
}

/// The site's acknowledgement on `DEVICE_TOPIC/log/ack`: every entry of `log` up to and
/// including `upto` is stored.
public struct LogAck: Equatable, Sendable {
  public var log: String
  public var upto: UInt64

  public init(log: String, upto: UInt64) {
    self.log = log
    self.upto = upto
  }

  /// `{"log":ID,"upto":N}`.
  public var json: String {
    JSONValue.object([("log", .string(log)), ("upto", .number(Double(upto)))]).serialized
  }

  /// nil unless a JSON object with a log id and `upto` from 0 to 2^53.
  public init?(json bytes: some Collection<UInt8>) {
    guard let value = try? JSONValue.parse(bytes), case .object = value,
      let log = value["log"]?.stringValue, LogCursor.isLogID(log),
      let number = value["upto"]?.numberValue, number >= 0, number <= LogCursor.maxSeqDouble,
      number == number.rounded(.towardZero)
    else { return nil }
    self.init(log: log, upto: UInt64(number))
  }
}

/// The door's side of the exactly-once upload of its log (docs/protocol.md, "Replica:
/// the door's log"). The entries themselves are rows of the door's SQLite log; this
/// value says which to publish and which an ack lets go. A log has a random id made once
/// (a door whose state was wiped starts a new log, so its new seq 1 is not taken for the
/// old one's); its entries are numbered 1, 2, 3 ...
///
/// Entries from `acked + 1` to `last` are pending. Each connection to the broker starts
/// by sending them all again from the first pending one (`reconnected`), then what is
/// new; the site stores each (device, log, seq) once, so a resend costs nothing.
public struct LogCursor: Equatable, Sendable {
  /// 32 lowercase hex digits.
  public let logID: String
  /// The last entry numbered (0: none yet).
  public private(set) var last: UInt64
  /// The site has stored every entry up to this one.
  public private(set) var acked: UInt64
  /// Published on this connection up to this one.
  public private(set) var sent: UInt64

  /// Seq numbers are JSON numbers: at most 2^53, which a door never reaches.
  public static let maxSeq: UInt64 = 1 << 53
  static let maxSeqDouble = Double(maxSeq)

  /// A cursor as the door's log left it (`last` and `acked` from its database), with
  /// nothing sent yet on this connection.
  public init(logID: String, last: UInt64 = 0, acked: UInt64 = 0) {
    self.logID = logID
    self.last = last
    self.acked = min(acked, last)
    self.sent = self.acked
  }

  /// A new log's id from 16 random bytes (getrandom(2) in the caller).
  public static func newLogID(random: [UInt8]) -> String {
    precondition(random.count == 16, "a log id is made of 16 random bytes")
    return Replica.hex(random)
  }

  public static func isLogID(_ text: String) -> Bool {
    text.utf8.count == 32
      && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  static func sequenceNumber(_ value: JSONValue) -> UInt64? {
    guard let number = value.numberValue, number >= 1, number <= maxSeqDouble,
      number == number.rounded(.towardZero)
    else { return nil }
    return UInt64(number)
  }

  /// Entries the site has not stored yet.
  public var pending: Int { Int(last - acked) }

  /// Numbers the next decision (its row is written with it before it is published).
  public mutating func append() -> UInt64 {
    last += 1
    return last
  }

  /// The numbers to publish now, at most `limit` of them (what the broker's in-flight
  /// window allows), marked sent; nil when everything pending is out.
  public mutating func toSend(limit: Int) -> ClosedRange<UInt64>? {
    guard limit > 0, sent < last else { return nil }
    let upto = min(last, sent + UInt64(limit))
    defer { sent = upto }
    return (sent + 1)...upto
  }

  /// Takes the site's ack: true when it let entries go (their rows may be marked
  /// uploaded). An ack of another log, of nothing new, or of entries never numbered (a
  /// hostile or confused peer) changes nothing.
  public mutating func take(_ ack: LogAck) -> Bool {
    guard ack.log == logID, ack.upto > acked, ack.upto <= last else { return false }
    acked = ack.upto
    sent = max(sent, acked)
    return true
  }

  /// A new connection to the broker: whatever was published but not acknowledged may be
  /// lost, so it is all sent again.
  public mutating func reconnected() { sent = acked }
}

/// The site's side (docs/protocol.md, "Replica: the door's log"): which (device, log,
/// seq) it has stored, so that it stores each once and acks what it holds without a gap.
/// The database's unique key (device, log, seq) is the final word; this value, rebuilt
/// from it at start (`init(restoring:)`), says what to insert and what to ack, in
/// bounded memory.
public struct LogReceipts: Equatable, Sendable {
  struct Key: Hashable, Sendable {
    var device: String
    var log: String
  }
  struct Receipt: Equatable, Sendable {
    /// Every seq up to this one is stored.
    var upto: UInt64
    /// Stored seqs above `upto + 1` (arrived out of order), at most `window` of them.
    var above: Set<UInt64>
  }

  /// Seqs taken ahead of the first missing one, per log; further ones are refused
  /// unstored (the door sends them again once the gap is filled).
  public static let window: UInt64 = 4096
  /// Logs kept at most (devices, and their older logs after a wipe).
  public static let maxLogs = 65_536

  private var receipts: [Key: Receipt] = [:]

  public init() {}

  /// What the database holds: for each (device, log), the seq every entry up to which
  /// is stored.
  public init(restoring stored: [(device: String, log: String, upto: UInt64)]) {
    for row in stored {
      receipts[Key(device: row.device, log: row.log)] = Receipt(upto: row.upto, above: [])
    }
  }

  public enum Outcome: Equatable, Sendable {
    /// Store it (then ack).
    case store
    /// Stored before: store nothing, ack again.
    case duplicate
    /// Too far ahead of the first missing entry, or one log too many: store nothing,
    /// ack what is held (the door sends it again later).
    case refused
  }

  /// The entry (`device` from the message's topic, not its body) arrives: whether to
  /// store it. Counts it as stored when it says so; the caller stores it before it acks.
  public mutating func receive(device: String, log: String, seq: UInt64) -> Outcome {
    let key = Key(device: device, log: log)
    var receipt = receipts[key] ?? Receipt(upto: 0, above: [])
    if receipts[key] == nil, receipts.count >= Self.maxLogs { return .refused }
    if seq <= receipt.upto || receipt.above.contains(seq) { return .duplicate }
    guard seq - receipt.upto <= Self.window else { return .refused }
    if seq == receipt.upto + 1 {
      receipt.upto = seq
      while receipt.above.remove(receipt.upto + 1) != nil { receipt.upto += 1 }
    } else {
      receipt.above.insert(seq)
    }
    receipts[key] = receipt
    return .store
  }

  /// The ack for (device, log): up to the last entry with none missing before it.
  public func ack(device: String, log: String) -> LogAck {
    LogAck(log: log, upto: receipts[Key(device: device, log: log)]?.upto ?? 0)
  }
}
