import PinpadControlCore
import PinpadCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// The site's tables of `access.db` (docs/protocol.md, "Replica: the site") on a real
/// SQLite in a temporary folder: the doors' entries each once, the receipts of their
/// logs, and the replicas' generations, all kept across a reopening.
@Suite struct SiteLogTests {
  static let logID = LogCursor.newLogID(random: Array(0..<16))
  static func entry(_ seq: UInt64) -> LogEntry {
    LogEntry(
      log: logID, seq: seq, atMs: 1_796_619_600_000 + Int64(seq), device: "door1",
      keypad: "front", person: seq == 2 ? nil : "alice", granted: seq != 2,
      reason: seq == 2 ? "no_match" : nil, duress: false)
  }

  @Test func anEntryIsStoredOnceAndShownAsLocal() throws {
    let dir = TempDir()
    let log = try AccessLog(directory: dir.path)
    try log.commitLocal(
      [("door1", Self.entry(1)), ("door1", Self.entry(2))],
      receipts: [("door1", Self.logID, 2)])
    // Sent again (a resend after a reconnection), with the next one.
    try log.commitLocal(
      [("door1", Self.entry(2)), ("door1", Self.entry(3))],
      receipts: [("door1", Self.logID, 3)])
    // The same seq of another device's log is another entry.
    try log.commitLocal([("door2", Self.entry(1))], receipts: [])
    var rows: [AccessLog.Record] = []
    try log.query(AccessLog.Filter()) { rows.append($0) }
    #expect(rows.count == 4)
    #expect(rows.allSatisfy { $0.local })
    let door1 = rows.filter { $0.device == "door1" }
    #expect(door1.map(\.granted) == [true, false, true])
    #expect(door1[1].reason == "no_match" && door1[1].person == nil)
    #expect(LogCommand.jsonLine(rows[0]).contains(#""device":"door1""#))
    #expect(
      LogCommand.jsonLine(rows[0]).contains(#""decided":"local","log":"\#(Self.logID)","seq":1}"#))
    #expect(door1.map(\.seq) == [1, 2, 3] && door1.allSatisfy { $0.logID == Self.logID })
    #expect(!LogCommand.jsonLine(rows[0]).contains(#""id""#))

    let reopened = try AccessLog(directory: dir.path)
    let receipts = try reopened.logReceipts()
    #expect(receipts.count == 1)
    #expect(
      receipts.first.map { [$0.device, $0.log, "\($0.upto)"] } == ["door1", Self.logID, "3"])
    // A receipt never goes back.
    try reopened.commitLocal([], receipts: [("door1", Self.logID, 1)])
    #expect(try reopened.logReceipts().first?.upto == 3)
  }

  @Test func aGenerationIsKeptAndNeverLowered() throws {
    let dir = TempDir()
    let log = try AccessLog(directory: dir.path)
    #expect(try log.replicaGenerations().isEmpty)
    try log.commitGeneration("pinpadd/door1", 1_796_619_600_000)
    try log.commitGeneration("pinpadd/door1", 5)
    try log.commitGeneration("pinpadd/door2", 7)
    let reopened = try AccessLog(directory: dir.path)
    #expect(
      try reopened.replicaGenerations() == ["pinpadd/door1": 1_796_619_600_000, "pinpadd/door2": 7])
  }
}
