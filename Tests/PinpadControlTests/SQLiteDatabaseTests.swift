import Foundation
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// pinpadctl's SQLite wrapper on real files: what only `AccessLog` asks of it.
@Suite struct SQLiteDatabaseTests {
  /// `AccessLog` reopens without creating: a database that vanished is not made again
  /// (empty, its counters would start from zero), one still there is opened as it is.
  @Test func openingWithoutCreateNeverMakesTheFile() throws {
    let dir = TempDir()
    let path = dir.file("kept.db")
    do {
      let made = try SQLiteDatabase(path: path)
      try made.execute("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (7), (8)")
    }
    let again = try SQLiteDatabase(path: path, create: false)
    #expect(try again.integer("SELECT sum(n) FROM t") == 15)
    try again.query("DELETE FROM t WHERE n = ?1", [.integer(7)])
    #expect(again.changes == 1)

    let missing = dir.file("gone.db")
    var failure: SQLiteDatabase.Failure? = nil
    do { _ = try SQLiteDatabase(path: missing, create: false) } catch { failure = error }
    #expect(
      failure?.description == "\(missing): cannot open the database: unable to open database file")
    #expect(!FileManager.default.fileExists(atPath: missing))
  }
}
