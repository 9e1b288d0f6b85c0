import PinpadControlCore
import PinpadCore
import PinpadSystem

/// A door's log of the decisions it took itself (docs/protocol.md, "Replica: the door's
/// log"): `door-log.sqlite` in the bridge's state directory, with the log's random id,
/// made once with the file, and how far the site has acknowledged it. Each entry is
/// committed before its verdict goes to the daemon; `cursor` says what to publish.
/// Never a code or a card.
final class DoorLog {
  static let fileName = "door-log.sqlite"
  let database: SQLiteDatabase
  private(set) var cursor: LogCursor
  let device: String

  /// Opens (or makes, with a new log id from `random`) the log in `directory`.
  init(directory: String, device: String, random: () -> [UInt8]) throws(SQLiteDatabase.Failure) {
    self.device = device
    let database = try SQLiteDatabase(path: directory + "/" + Self.fileName)
    self.database = database
    try database.execute(
      """
      CREATE TABLE IF NOT EXISTS log_meta (id INTEGER PRIMARY KEY CHECK (id = 1),
        log TEXT NOT NULL, acked INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL,
        keypad TEXT NOT NULL, person TEXT, granted INTEGER NOT NULL, reason TEXT,
        duress INTEGER NOT NULL);
      """)
    var logID: String? = nil
    var acked: Int64 = 0
    try database.query("SELECT log, acked FROM log_meta WHERE id = 1") { row in
      logID = row.text(0)
      acked = row.integer(1) ?? 0
    }
    if logID == nil || !LogCursor.isLogID(logID ?? "") {
      let made = LogCursor.newLogID(random: random())
      // A new log: any entries of an old one are gone with its id.
      try database.transaction { () throws(SQLiteDatabase.Failure) in
        try database.execute("DELETE FROM entries")
        try database.query(
          "INSERT OR REPLACE INTO log_meta (id, log, acked) VALUES (1, ?, 0)", [.text(made)])
      }
      logID = made
      acked = 0
    }
    let last = try database.integer("SELECT COALESCE(MAX(seq), 0) FROM entries") ?? 0
    cursor = LogCursor(logID: logID ?? "", last: UInt64(max(0, last)), acked: UInt64(max(0, acked)))
  }

  /// Commits one decision; its entry (with the next seq).
  func append(
    atMs: Int64, keypad: String, decision: Decision
  ) throws(SQLiteDatabase.Failure) -> LogEntry {
    var next = cursor
    let seq = next.append()
    let reason = decision.granted ? nil : (decision.reason ?? .unknown).rawValue
    let duress = decision.duress
    try database.query(
      "INSERT INTO entries (seq, at, keypad, person, granted, reason, duress)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?)",
      [
        .integer(Int64(seq)), .integer(atMs), .text(keypad),
        decision.person.map { .text($0) } ?? .null,
        .integer(decision.granted ? 1 : 0), reason.map { .text($0) } ?? .null,
        .integer(duress ? 1 : 0),
      ])
    cursor = next
    return LogEntry(
      log: cursor.logID, seq: seq, atMs: atMs, device: device, keypad: keypad,
      person: decision.person, granted: decision.granted, reason: reason, duress: duress)
  }

  /// The entries numbered `range`, in order.
  func entries(_ range: ClosedRange<UInt64>) throws(SQLiteDatabase.Failure) -> [LogEntry] {
    var out: [LogEntry] = []
    let logID = cursor.logID
    let device = device
    try database.query(
      "SELECT seq, at, keypad, person, granted, reason, duress FROM entries"
        + " WHERE seq BETWEEN ? AND ? ORDER BY seq",
      [.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))]
    ) { row in
      out.append(
        LogEntry(
          log: logID, seq: UInt64(row.integer(0) ?? 0), atMs: row.integer(1) ?? 0,
          device: device, keypad: row.text(2) ?? "", person: row.text(3),
          granted: (row.integer(4) ?? 0) != 0, reason: row.text(5),
          duress: (row.integer(6) ?? 0) != 0))
    }
    return out
  }

  /// The next batch to publish, at most `limit` entries, marked sent.
  func toSend(limit: Int) throws(SQLiteDatabase.Failure) -> [LogEntry] {
    var next = cursor
    guard let range = next.toSend(limit: limit) else { return [] }
    let batch = try entries(range)
    cursor = next
    return batch
  }

  /// The site's ack: kept, and the entries it covers dropped. False when it changed
  /// nothing (another log's, an old one, one beyond what was numbered).
  func take(_ ack: LogAck) throws(SQLiteDatabase.Failure) -> Bool {
    var next = cursor
    guard next.take(ack) else { return false }
    try database.transaction { () throws(SQLiteDatabase.Failure) in
      try database.query(
        "UPDATE log_meta SET acked = ? WHERE id = 1", [.integer(Int64(next.acked))])
      // The last entry stays, so that the numbering goes on after a restart.
      try database.query(
        "DELETE FROM entries WHERE seq <= ? AND seq < ?",
        [.integer(Int64(next.acked)), .integer(Int64(next.last))])
    }
    cursor = next
    return true
  }

  /// A new broker connection: everything not acknowledged is sent again.
  func reconnected() { cursor.reconnected() }
}
