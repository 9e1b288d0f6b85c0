import CSQLite
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

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

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
  ]
  static var schemaVersion: Int { migrations.count }

  let path: String
  private var db: OpaquePointer? = nil
  private var identity: FileIdentity? = nil

  /// Opens (creating it, mode 0600) and migrates the database in `directory`.
  /// `upTo`: run only that many migrations (tests build an old database with it).
  init(directory: String, upTo: Int = AccessLog.schemaVersion) throws(Failure) {
    path = directory + "/" + Self.fileName
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
    try open(create: true, upTo: upTo)
  }

  deinit { closeDatabase() }

  private func closeDatabase() {
    if let db { sqlite3_close_v2(db) }
    db = nil
  }

  private func open(create: Bool, upTo: Int = AccessLog.schemaVersion) throws(Failure) {
    var handle: OpaquePointer? = nil
    let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
    let rc = sqlite3_open_v2(path, &handle, flags, nil)
    guard rc == SQLITE_OK, let handle else {
      let why = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let handle { sqlite3_close_v2(handle) }
      throw Failure(description: "\(path): cannot open the database: \(why)")
    }
    db = handle
    do {
      sqlite3_busy_timeout(handle, 5000)
      try execute("PRAGMA journal_mode=WAL")
      try execute("PRAGMA synchronous=FULL")
      try migrate(upTo: upTo)
    } catch {
      closeDatabase()
      throw error
    }
    identity = FileSystem.identity(path)
  }

  /// Runs the migrations past the database's `user_version`, each in its own
  /// transaction. A database newer than this program is refused.
  private func migrate(upTo: Int) throws(Failure) {
    let version = try integer("PRAGMA user_version")
    guard version <= Self.schemaVersion else {
      throw Failure(
        description:
          "\(path): the database's schema is version \(version), newer than this pinpadctl's"
          + " \(Self.schemaVersion)")
    }
    guard version < upTo else { return }
    for step in Int(version)..<upTo {
      try execute("BEGIN IMMEDIATE")
      do {
        try execute(Self.migrations[step])
        try execute("PRAGMA user_version = \(step + 1)")
        try execute("COMMIT")
      } catch {
        try? execute("ROLLBACK")
        throw error
      }
    }
  }

  var version: Int64 { (try? integer("PRAGMA user_version")) ?? -1 }

  /// Whether the file at `path` is still the one opened; when the database is closed,
  /// reopens it (without creating it).
  private func ensureOpen() throws(Failure) {
    if db != nil, FileSystem.identity(path) == identity { return }
    closeDatabase()
    guard FileSystem.exists(path) else {
      throw Failure(description: "\(path): the database is gone")
    }
    try open(create: false)
  }

  /// Records `record`; for a grant of a line with `uses` (its name and limit), first
  /// spends one of them, in the same transaction. Returns what was recorded: a grant
  /// whose uses are spent is recorded (and returned) as denied, `used_up`.
  func commit(_ record: Record, uses: Int? = nil) throws(Failure) -> Record {
    try ensureOpen()
    var record = record
    do {
      try execute("BEGIN IMMEDIATE")
      if record.granted, let limit = uses, let person = record.person {
        let spent = try integer("SELECT spent FROM uses WHERE person = ?1", [.text(person)])
        if spent >= limit {
          record.granted = false
          record.reason = DenialReason.usedUp.rawValue
          record.duress = false
        } else {
          try run(
            "INSERT INTO uses (person, spent) VALUES (?1, 1)"
              + " ON CONFLICT (person) DO UPDATE SET spent = spent + 1", [.text(person)])
        }
      }
      try run(
        "INSERT INTO log (at_ms, device, keypad, person, result, reason, duress, attempt)"
          + " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        [
          .integer(record.at), record.device.map { .text($0) } ?? .null, .text(record.keypad),
          record.person.map { .text($0) } ?? .null, .text(record.granted ? "granted" : "denied"),
          record.reason.map { .text($0) } ?? .null, .integer(record.duress ? 1 : 0),
          .text(record.attempt),
        ])
      try execute("COMMIT")
    } catch {
      if let db, sqlite3_get_autocommit(db) == 0 { try? execute("ROLLBACK") }
      // The next decision reopens: a handle that hit a full disk or an I/O error is
      // not trusted further.
      closeDatabase()
      throw error
    }
    return record
  }

  /// How many uses of `person`'s line were spent.
  func spent(_ person: String) throws(Failure) -> Int64 {
    try ensureOpen()
    return try integer("SELECT spent FROM uses WHERE person = ?1", [.text(person)])
  }

  /// Deletes the decisions older than `before` (ms); how many.
  @discardableResult
  func prune(before: Int64) throws(Failure) -> Int {
    try ensureOpen()
    try run("DELETE FROM log WHERE at_ms < ?1", [.integer(before)])
    return Int(sqlite3_changes(db))
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
    try ensureOpen()
    var conditions: [String] = []
    var values: [Value] = []
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
    let statement = try prepare(sql, values)
    defer { sqlite3_finalize(statement) }
    while true {
      let rc = sqlite3_step(statement)
      if rc == SQLITE_DONE { return }
      guard rc == SQLITE_ROW else { throw failure("reading the log") }
      func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL,
          let bytes = sqlite3_column_text(statement, column)
        else { return nil }
        return String(cString: bytes)
      }
      each(
        Record(
          at: sqlite3_column_int64(statement, 0), device: text(1), keypad: text(2) ?? "",
          person: text(3), granted: text(4) == "granted", reason: text(5),
          duress: sqlite3_column_int64(statement, 6) != 0, attempt: text(7) ?? "",
          local: text(8) == "local", logID: text(9),
          seq: sqlite3_column_type(statement, 10) == SQLITE_NULL
            ? nil : sqlite3_column_int64(statement, 10)))
    }
  }

  // MARK: the replicas and the doors' logs (docs/protocol.md, "Replica")

  /// The last replica generation committed for each device topic.
  func replicaGenerations() throws(Failure) -> [String: UInt64] {
    try ensureOpen()
    var out: [String: UInt64] = [:]
    try rows("SELECT device_topic, generation FROM replica_generations") { statement in
      guard let topic = sqlite3_column_text(statement, 0) else { return }
      out[String(cString: topic)] = UInt64(max(0, sqlite3_column_int64(statement, 1)))
    }
    return out
  }

  /// Commits `generation` as the device topic's last one (before its replica is
  /// published); never lowers it.
  func commitGeneration(_ deviceTopic: String, _ generation: UInt64) throws(Failure) {
    try ensureOpen()
    try transaction {
      () throws(Failure) in
      try run(
        "INSERT INTO replica_generations (device_topic, generation) VALUES (?1, ?2)"
          + " ON CONFLICT (device_topic) DO UPDATE SET generation ="
          + " max(generation, excluded.generation)",
        [.text(deviceTopic), .integer(Int64(clamping: generation))])
    }
  }

  /// What the site has of each door's log: every entry up to `upto` is stored.
  func logReceipts() throws(Failure) -> [(device: String, log: String, upto: UInt64)] {
    try ensureOpen()
    var out: [(device: String, log: String, upto: UInt64)] = []
    try rows("SELECT device, log_id, upto FROM log_receipts") { statement in
      guard let device = sqlite3_column_text(statement, 0),
        let log = sqlite3_column_text(statement, 1)
      else { return }
      out.append(
        (
          String(cString: device), String(cString: log),
          UInt64(max(0, sqlite3_column_int64(statement, 2)))
        ))
    }
    return out
  }

  /// Stores the doors' decisions `entries` (each (device, log, seq) once: one already
  /// there is passed over) and the receipts `upto` of their logs, in one transaction.
  func commitLocal(
    _ entries: [(device: String, entry: LogEntry)],
    receipts: [(device: String, log: String, upto: UInt64)]
  ) throws(Failure) {
    try ensureOpen()
    try transaction {
      () throws(Failure) in
      for (device, entry) in entries {
        try run(
          "INSERT OR IGNORE INTO log (at_ms, device, keypad, person, result, reason, duress,"
            + " attempt, origin, log_id, seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '', 'local',"
            + " ?8, ?9)",
          [
            .integer(entry.atMs), .text(device), .text(entry.keypad),
            entry.person.map { .text($0) } ?? .null,
            .text(entry.granted ? "granted" : "denied"), entry.reason.map { .text($0) } ?? .null,
            .integer(entry.granted && entry.duress ? 1 : 0), .text(entry.log),
            .integer(Int64(clamping: entry.seq)),
          ])
      }
      for receipt in receipts {
        try run(
          "INSERT INTO log_receipts (device, log_id, upto) VALUES (?1, ?2, ?3)"
            + " ON CONFLICT (device, log_id) DO UPDATE SET upto = max(upto, excluded.upto)",
          [.text(receipt.device), .text(receipt.log), .integer(Int64(clamping: receipt.upto))])
      }
    }
  }

  /// Runs `body` in one BEGIN IMMEDIATE ... COMMIT; on failure rolls back and closes
  /// the handle (the next call reopens it), as `commit` does.
  private func transaction(_ body: () throws(Failure) -> Void) throws(Failure) {
    do {
      try execute("BEGIN IMMEDIATE")
      try body()
      try execute("COMMIT")
    } catch {
      if let db, sqlite3_get_autocommit(db) == 0 { try? execute("ROLLBACK") }
      closeDatabase()
      throw error
    }
  }

  /// Runs a query, one call of `each` per row.
  private func rows(_ sql: String, _ each: (OpaquePointer) -> Void) throws(Failure) {
    let statement = try prepare(sql, [])
    defer { sqlite3_finalize(statement) }
    while true {
      let rc = sqlite3_step(statement)
      if rc == SQLITE_DONE { return }
      guard rc == SQLITE_ROW else { throw failure("reading") }
      each(statement)
    }
  }

  // MARK: statements

  enum Value {
    case integer(Int64)
    case text(String)
    case null
  }

  private func failure(_ doing: String) -> Failure {
    let why = db.map { String(cString: sqlite3_errmsg($0)) } ?? "not open"
    return Failure(description: "\(path): \(doing): \(why)")
  }

  /// Runs `sql` (one or more statements, no values).
  private func execute(_ sql: String) throws(Failure) {
    guard let db else { throw failure("the database is closed") }
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure("writing") }
  }

  private func prepare(_ sql: String, _ values: [Value]) throws(Failure) -> OpaquePointer {
    guard let db else { throw failure("the database is closed") }
    var statement: OpaquePointer? = nil
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw failure("preparing a statement")
    }
    for (index, value) in values.enumerated() {
      let position = Int32(index + 1)
      switch value {
      case .integer(let n): sqlite3_bind_int64(statement, position, n)
      case .text(let s): sqlite3_bind_text(statement, position, s, -1, pinpad_sqlite_transient())
      case .null: sqlite3_bind_null(statement, position)
      }
    }
    return statement
  }

  /// Runs one statement that returns no rows.
  private func run(_ sql: String, _ values: [Value]) throws(Failure) {
    let statement = try prepare(sql, values)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("writing") }
  }

  /// The first column of the first row (0 when there is none).
  private func integer(_ sql: String, _ values: [Value] = []) throws(Failure) -> Int64 {
    let statement = try prepare(sql, values)
    defer { sqlite3_finalize(statement) }
    switch sqlite3_step(statement) {
    case SQLITE_ROW: return sqlite3_column_int64(statement, 0)
    case SQLITE_DONE: return 0
    default: throw failure("reading")
    }
  }
}
