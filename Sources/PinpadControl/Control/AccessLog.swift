import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// The controller's database (docs/protocol.md, "Access log"): the access log and the use
/// counters of `uses=N` lines, in `access.db` of the state directory (SQLite, write-ahead
/// log, synchronous=FULL), mode 0600. Every decision is committed before its verdict is
/// sent; a grant that spends a use spends it in the same transaction (BEGIN IMMEDIATE, so
/// two controllers on one database cannot both spend the last use). Nothing about a code
/// or card is stored, not even a hash: times, places, names, results, reasons.
///
/// A decision that cannot be committed throws (the caller denies with `unavailable`);
/// the next one tries again, reopening the database when it was closed: a full disk
/// recovers by itself when space is back. A database that vanished or was replaced
/// under it is not re-created (its counters would start from zero): it is reopened
/// when a database is back at the path.
final class AccessLog {
  static let fileName = "access.db"

  /// One decision as logged.
  struct Record: Equatable {
    /// Milliseconds since the epoch.
    var at: Int64
    /// The fleet device (the topic's DEVICE), nil for a local keypad.
    var device: String?
    var keypad: String
    /// The matched line's name; nil when no line matched.
    var person: String?
    var granted: Bool
    var reason: String?
    var duress: Bool = false
    var attempt: String = ""
    /// Decided by the door itself from its replica (docs/protocol.md, "Replica: the
    /// door's log"), not by this controller.
    var local = false
    /// A local decision's place in its door's log: the log id and its number there.
    var logID: String? = nil
    var seq: Int64? = nil
  }

  /// The database's failures: its path, what was being done, SQLite's message.
  typealias Failure = SQLiteDatabase.Failure

  /// The schema's steps; `PRAGMA user_version` is how many have run.
  static let migrations: [String] = [
    // 1: the log and the counters.
    """
    CREATE TABLE log (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, device TEXT,
      keypad TEXT NOT NULL, person TEXT, result TEXT NOT NULL, reason TEXT,
      duress INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE uses (person TEXT PRIMARY KEY, spent INTEGER NOT NULL);
    """,
    // 2: the attempt id beside each decision, and the indexes `log --since` and
    // `--person` use.
    """
    ALTER TABLE log ADD COLUMN attempt TEXT NOT NULL DEFAULT '';
    CREATE INDEX log_at ON log (at_ms);
    CREATE INDEX log_person ON log (person, at_ms);
    """,
    // 3: the doors' own decisions (`origin` 'local', each (device, log, seq) once), what
    // the site has of each door's log, and the generation of each device's replica.
    """
    ALTER TABLE log ADD COLUMN origin TEXT;
    ALTER TABLE log ADD COLUMN log_id TEXT;
    ALTER TABLE log ADD COLUMN seq INTEGER;
    CREATE UNIQUE INDEX log_local ON log (device, log_id, seq) WHERE log_id IS NOT NULL;
    CREATE TABLE log_receipts (device TEXT NOT NULL, log_id TEXT NOT NULL,
      upto INTEGER NOT NULL, PRIMARY KEY (device, log_id));
    CREATE TABLE replica_generations (device_topic TEXT PRIMARY KEY,
      generation INTEGER NOT NULL);
    """,
    // 4: the attempts already decided, found by id (a repeated code message gets the
    // verdict it had, `decided`).
    """
    CREATE INDEX log_attempt ON log (attempt);
    """,
  ]
  static var schemaVersion: Int { migrations.count }

  let path: String
  /// Nil while closed; dropping it closes the handle.
  private var db: SQLiteDatabase? = nil
  private var identity: FileIdentity? = nil

  /// Opens (creating it, mode 0600) and migrates the database in `directory`.
  /// `upTo`: run only that many migrations (tests build an old database with it).
  init(directory: String, upTo: Int = AccessLog.schemaVersion) throws(Failure) {
    path = directory + "/" + Self.fileName
    // Made here, so that SQLite never creates it: not even when it vanishes later.
    if !FileSystem.exists(path) {
      let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if fd >= 0 {
        var owned = OwnedDescriptor(taking: fd)
        owned.close()
      }
    }
    if let status = try? FileSystem.status(path), status.mode & 0o077 != 0 {
      try? FileSystem.setMode(path, 0o600)
    }
    _ = try open(upTo: upTo)
  }

  /// Opens the database at `path` (never creating it) and migrates it.
  private func open(upTo: Int = AccessLog.schemaVersion) throws(Failure) -> SQLiteDatabase {
    let opened = try SQLiteDatabase(path: path, create: false)
    try migrate(opened, upTo: upTo)
    db = opened
    identity = FileSystem.identity(path)
    return opened
  }

  /// Runs the migrations past the database's `user_version`, each in its own
  /// transaction. A database newer than this program is refused.
  private func migrate(_ db: SQLiteDatabase, upTo: Int) throws(Failure) {
    let version = try Self.integer(db, "PRAGMA user_version")
    guard version <= Self.schemaVersion else {
      throw Failure(
        description:
          "\(path): the database's schema is version \(version), newer than this pinpadctl's"
          + " \(Self.schemaVersion)")
    }
    guard version < upTo else { return }
    for step in Int(version)..<upTo {
      try db.transaction { () throws(Failure) in
        try db.execute(Self.migrations[step])
        try db.execute("PRAGMA user_version = \(step + 1)")
      }
    }
  }

  var version: Int64 {
    guard let db, let version = try? Self.integer(db, "PRAGMA user_version") else { return -1 }
    return version
  }

  /// The open database: the one opened when the file at `path` is still it; when the
  /// database is closed, reopens it (without creating it).
  private func ensureOpen() throws(Failure) -> SQLiteDatabase {
    if let db, FileSystem.identity(path) == identity { return db }
    db = nil
    guard FileSystem.exists(path) else {
      throw Failure(description: "\(path): the database is gone")
    }
    return try open()
  }

  /// Records `record`; for a grant of a line with `uses` (its name and limit), first
  /// spends one of them, in the same transaction. Returns what was recorded: a grant
  /// whose uses are spent is recorded (and returned) as denied, `used_up`.
  func commit(_ record: Record, uses: Int? = nil) throws(Failure) -> Record {
    var record = record
    try transaction { db throws(Failure) in
      if record.granted, let limit = uses, let person = record.person {
        let spent = try Self.integer(
          db, "SELECT spent FROM uses WHERE person = ?1", [.text(person)])
        if spent >= limit {
          record.granted = false
          record.reason = DenialReason.usedUp.rawValue
        } else {
          try db.query(
            "INSERT INTO uses (person, spent) VALUES (?1, 1)"
              + " ON CONFLICT (person) DO UPDATE SET spent = spent + 1", [.text(person)],
            doing: "writing")
        }
      }
      try db.query(
        "INSERT INTO log (at_ms, device, keypad, person, result, reason, duress, attempt)"
          + " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        [
          .integer(record.at), record.device.map { .text($0) } ?? .null, .text(record.keypad),
          record.person.map { .text($0) } ?? .null, .text(record.granted ? "granted" : "denied"),
          record.reason.map { .text($0) } ?? .null, .integer(record.duress ? 1 : 0),
          .text(record.attempt),
        ], doing: "writing")
    }
    return record
  }

  /// The decision this controller logged for attempt `attempt` from `device` and
  /// `keypad` (never a door's own), nil when there is none.
  func decided(attempt: String, device: String?, keypad: String) throws(Failure) -> Record? {
    var found: Record? = nil
    try ensureOpen().query(
      "SELECT at_ms, person, result, reason, duress FROM log WHERE attempt = ?1"
        + " AND device IS ?2 AND keypad = ?3 AND origin IS NULL ORDER BY id LIMIT 1",
      [.text(attempt), device.map { .text($0) } ?? .null, .text(keypad)], doing: "reading"
    ) { row in
      found = Record(
        at: row.integer(0) ?? 0, device: device, keypad: keypad, person: row.text(1),
        granted: row.text(2) == "granted", reason: row.text(3),
        duress: (row.integer(4) ?? 0) != 0, attempt: attempt)
    }
    return found
  }

  /// How many uses of `person`'s line were spent.
  func spent(_ person: String) throws(Failure) -> Int64 {
    try Self.integer(ensureOpen(), "SELECT spent FROM uses WHERE person = ?1", [.text(person)])
  }

  /// Deletes the decisions older than `before` (ms); how many.
  @discardableResult
  func prune(before: Int64) throws(Failure) -> Int {
    let db = try ensureOpen()
    try db.query("DELETE FROM log WHERE at_ms < ?1", [.integer(before)], doing: "writing")
    return db.changes
  }

  struct Filter: Equatable {
    var since: Int64? = nil
    var until: Int64? = nil
    var person: String? = nil
    /// A keypad name, or DEVICE/KEYPAD.
    var door: String? = nil
  }

  /// The decisions that pass `filter`, oldest first, one call of `each` per row.
  func query(_ filter: Filter, _ each: (Record) -> Void) throws(Failure) {
    let db = try ensureOpen()
    var conditions: [String] = []
    var values: [SQLiteDatabase.Value] = []
    if let since = filter.since {
      values.append(.integer(since))
      conditions.append("at_ms >= ?\(values.count)")
    }
    if let until = filter.until {
      values.append(.integer(until))
      conditions.append("at_ms < ?\(values.count)")
    }
    if let person = filter.person {
      values.append(.text(person))
      conditions.append("person = ?\(values.count)")
    }
    if let door = filter.door {
      values.append(.text(door))
      let n = values.count
      conditions.append(
        "(keypad = ?\(n) OR (device IS NOT NULL AND device || '/' || keypad = ?\(n)))")
    }
    let sql =
      "SELECT at_ms, device, keypad, person, result, reason, duress, attempt, origin, log_id, seq"
      + " FROM log"
      + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
      + " ORDER BY at_ms, id"
    try db.query(sql, values, doing: "reading the log") { row in
      each(
        Record(
          at: row.integer(0) ?? 0, device: row.text(1), keypad: row.text(2) ?? "",
          person: row.text(3), granted: row.text(4) == "granted", reason: row.text(5),
          duress: (row.integer(6) ?? 0) != 0, attempt: row.text(7) ?? "",
          local: row.text(8) == "local", logID: row.text(9), seq: row.integer(10)))
    }
  }

  // MARK: the replicas and the doors' logs (docs/protocol.md, "Replica")

  /// The last replica generation committed for each device topic.
  func replicaGenerations() throws(Failure) -> [String: UInt64] {
    var out: [String: UInt64] = [:]
    try ensureOpen().query(
      "SELECT device_topic, generation FROM replica_generations", doing: "reading"
    ) { row in
      guard let topic = row.text(0) else { return }
      out[topic] = UInt64(max(0, row.integer(1) ?? 0))
    }
    return out
  }

  /// Commits `generation` as the device topic's last one (before its replica is
  /// published); never lowers it.
  func commitGeneration(_ deviceTopic: String, _ generation: UInt64) throws(Failure) {
    try transaction { db throws(Failure) in
      try db.query(
        "INSERT INTO replica_generations (device_topic, generation) VALUES (?1, ?2)"
          + " ON CONFLICT (device_topic) DO UPDATE SET generation ="
          + " max(generation, excluded.generation)",
        [.text(deviceTopic), .integer(Int64(clamping: generation))], doing: "writing")
    }
  }

  /// What the site has of each door's log: every entry up to `upto` is stored.
  func logReceipts() throws(Failure) -> [(device: String, log: String, upto: UInt64)] {
    var out: [(device: String, log: String, upto: UInt64)] = []
    let sql = "SELECT device, log_id, upto FROM log_receipts"
    try ensureOpen().query(sql, doing: "reading") { row in
      guard let device = row.text(0), let log = row.text(1) else { return }
      out.append((device, log, UInt64(max(0, row.integer(2) ?? 0))))
    }
    return out
  }

  /// Stores the doors' decisions `entries` (each (device, log, seq) once: one already
  /// there is passed over) and the receipts `upto` of their logs, in one transaction.
  func commitLocal(
    _ entries: [(device: String, entry: LogEntry)],
    receipts: [(device: String, log: String, upto: UInt64)]
  ) throws(Failure) {
    try transaction { db throws(Failure) in
      for (device, entry) in entries {
        try db.query(
          "INSERT OR IGNORE INTO log (at_ms, device, keypad, person, result, reason, duress,"
            + " attempt, origin, log_id, seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '', 'local',"
            + " ?8, ?9)",
          [
            .integer(entry.atMs), .text(device), .text(entry.keypad),
            entry.person.map { .text($0) } ?? .null,
            .text(entry.granted ? "granted" : "denied"), entry.reason.map { .text($0) } ?? .null,
            .integer(entry.duress ? 1 : 0), .text(entry.log),
            .integer(Int64(clamping: entry.seq)),
          ], doing: "writing")
      }
      for receipt in receipts {
        try db.query(
          "INSERT INTO log_receipts (device, log_id, upto) VALUES (?1, ?2, ?3)"
            + " ON CONFLICT (device, log_id) DO UPDATE SET upto = max(upto, excluded.upto)",
          [.text(receipt.device), .text(receipt.log), .integer(Int64(clamping: receipt.upto))],
          doing: "writing")
      }
    }
  }

  /// Runs `body` on the open database in one BEGIN IMMEDIATE ... COMMIT; on failure
  /// rolls back and closes the handle: the next call reopens it, as a handle that hit
  /// a full disk or an I/O error is not trusted further.
  private func transaction(_ body: (SQLiteDatabase) throws(Failure) -> Void) throws(Failure) {
    let db = try ensureOpen()
    do {
      try db.transaction { () throws(Failure) in try body(db) }
    } catch {
      self.db = nil
      throw error
    }
  }

  /// The first column of the first row of `sql` (0 when there is none).
  private static func integer(
    _ db: SQLiteDatabase, _ sql: String, _ values: [SQLiteDatabase.Value] = []
  ) throws(Failure) -> Int64 {
    try db.integer(sql, values, doing: "reading") ?? 0
  }
}
