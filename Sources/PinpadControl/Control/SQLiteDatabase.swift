import CSQLite
import Glibc
import PinpadSystem

/// A SQLite database file of pinpadctl's own (the controller's `AccessLog`, a door's
/// `DoorLog`), in WAL mode with full syncs, so what a call wrote is on disk when it
/// returns. Values go in as bound parameters, never as SQL text. The one file that
/// calls SQLite: the handle is closed when the object goes.
final class SQLiteDatabase {
  /// What failed: "PATH: what was being done: SQLite's message".
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  enum Value {
    case integer(Int64)
    case text(String)
    case null
  }

  /// A row of a query, valid only during the call it is given to.
  struct Row {
    fileprivate let statement: OpaquePointer

    /// Column `index` as an integer, nil for NULL.
    func integer(_ index: Int32) -> Int64? {
      sqlite3_column_type(statement, index) == SQLITE_NULL
        ? nil : sqlite3_column_int64(statement, index)
    }

    /// Column `index` as text, nil for NULL.
    func text(_ index: Int32) -> String? {
      guard sqlite3_column_type(statement, index) != SQLITE_NULL,
        let bytes = sqlite3_column_text(statement, index)
      else { return nil }
      return String(cString: bytes)
    }
  }

  let path: String
  private let handle: OpaquePointer

  /// Opens `path`. With `create`, makes it 0600 when missing (and an existing one
  /// 0600); without, a missing file is a failure and nothing is made.
  init(path: String, create: Bool = true) throws(Failure) {
    self.path = path
    var opened: OpaquePointer? = nil
    let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
    // Made 0600 (SQLite creates its files 0644 less the umask), its -wal and -shm too.
    let rc =
      create
      ? FileSystem.withUmask(0o077) { sqlite3_open_v2(path, &opened, flags, nil) }
      : sqlite3_open_v2(path, &opened, flags, nil)
    guard rc == SQLITE_OK, let opened else {
      let why = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let opened { sqlite3_close_v2(opened) }
      throw Failure(description: "\(path): cannot open the database: \(why)")
    }
    // One made by someone else with a wider mode is narrowed.
    if create, let mode = try? FileSystem.status(path).mode, mode & 0o777 != 0o600 {
      try? FileSystem.setMode(path, 0o600)
    }
    handle = opened
    sqlite3_busy_timeout(handle, 5000)
    do {
      try execute("PRAGMA journal_mode=WAL")
      try execute("PRAGMA synchronous=FULL")
    } catch {
      sqlite3_close_v2(handle)
      throw error
    }
  }

  deinit { sqlite3_close_v2(handle) }

  private func failure(_ doing: String) -> Failure {
    Failure(description: "\(path): \(doing): \(String(cString: sqlite3_errmsg(handle)))")
  }

  /// Runs `sql`: one or more statements without values.
  func execute(_ sql: String) throws(Failure) {
    guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure("writing") }
  }

  /// Runs the statement `sql` with `values` bound, calling `row` for each row it gives;
  /// `doing` names it in the failure.
  func query(
    _ sql: String, _ values: [Value] = [], doing: String = "reading or writing",
    row: (Row) -> Void = { _ in }
  ) throws(Failure) {
    var prepared: OpaquePointer? = nil
    guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared
    else { throw failure("preparing a statement") }
    defer { sqlite3_finalize(statement) }
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      switch value {
      case .integer(let number): sqlite3_bind_int64(statement, index, number)
      case .text(let text):
        sqlite3_bind_text(statement, index, text, -1, pinpad_sqlite_transient())
      case .null: sqlite3_bind_null(statement, index)
      }
    }
    while true {
      switch sqlite3_step(statement) {
      case SQLITE_ROW: row(Row(statement: statement))
      case SQLITE_DONE: return
      default: throw failure(doing)
      }
    }
  }

  /// The first column of the first row of `sql` (0 for NULL), nil when it gives no row.
  func integer(
    _ sql: String, _ values: [Value] = [], doing: String = "reading or writing"
  ) throws(Failure) -> Int64? {
    var first: Int64? = nil
    try query(sql, values, doing: doing) { row in
      if first == nil { first = row.integer(0) ?? 0 }
    }
    return first
  }

  /// How many rows the last INSERT, UPDATE or DELETE changed.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// Whether a transaction is open (SQLite rolls some back by itself on an error).
  var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs `body` in one transaction (BEGIN IMMEDIATE: the write lock from the start):
  /// committed when it returns, rolled back when it throws.
  func transaction(_ body: () throws(Failure) -> Void) throws(Failure) {
    do {
      try execute("BEGIN IMMEDIATE")
      try body()
      try execute("COMMIT")
    } catch {
      if inTransaction { try? execute("ROLLBACK") }
      throw error
    }
  }
}
