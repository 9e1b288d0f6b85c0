import Foundation
import PinpadControlCore
import PinpadCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// A door's log in a real SQLite file (docs/protocol.md, "Replica: the door's log"): the
/// log id made once, numbering that goes on across reopening, what is sent, and what an
/// ack lets go.
@Suite struct DoorLogTests {
  static func open(_ dir: TempDir, random: UInt8 = 0xA5) throws -> DoorLog {
    try DoorLog(directory: dir.path, device: "door1") {
      [UInt8](repeating: random, count: 16)
    }
  }

  @Test func entriesAreNumberedFromOneUnderARandomLogIdKeptWithTheFile() throws {
    let dir = TempDir()
    let log = try Self.open(dir)
    #expect(log.cursor.logID == String(repeating: "a5", count: 16))
    let first = try log.append(atMs: 1000, keypad: "front", decision: .grant("alice"))
    let second = try log.append(
      atMs: 2000, keypad: "front", decision: .deny(.unknown))
    #expect(first.seq == 1)
    #expect(second.seq == 2)
    #expect(second.reason == "unknown")
    #expect(second.person == nil)
    #expect(second.device == "door1")
    let mode =
      try FileManager.default.attributesOfItem(atPath: dir.file(DoorLog.fileName))[
        .posixPermissions] as? Int
    #expect(mode == 0o600)
    // Reopened (another random would make another id): the same log, numbering goes on.
    let again = try Self.open(dir, random: 0x11)
    #expect(again.cursor.logID == log.cursor.logID)
    #expect(try again.append(atMs: 3000, keypad: "front", decision: .grant("bob")).seq == 3)
  }

  @Test func pendingEntriesAreSentInBatchesAndAgainAfterAReconnectionUntilAcked() throws {
    let dir = TempDir()
    let log = try Self.open(dir)
    for i in 0..<5 {
      _ = try log.append(atMs: Int64(i), keypad: "k", decision: .deny(.unknown))
    }
    #expect(try log.toSend(limit: 2).map(\.seq) == [1, 2])
    #expect(try log.toSend(limit: 10).map(\.seq) == [3, 4, 5])
    #expect(try log.toSend(limit: 10).isEmpty)
    let id = log.cursor.logID
    #expect(try !log.take(LogAck(log: String(repeating: "0", count: 32), upto: 5)))
    #expect(try !log.take(LogAck(log: id, upto: 9)), "beyond what was numbered")
    #expect(try log.take(LogAck(log: id, upto: 3)))
    log.reconnected()
    #expect(try log.toSend(limit: 10).map(\.seq) == [4, 5])
    // The ack survives a restart: only what is not acked is sent.
    let again = try Self.open(dir)
    #expect(again.cursor.pending == 2)
    #expect(try again.toSend(limit: 10).map(\.seq) == [4, 5])
    #expect(try again.take(LogAck(log: id, upto: 5)))
    #expect(try Self.open(dir).cursor.pending == 0)
    #expect(try Self.open(dir).append(atMs: 9, keypad: "k", decision: .grant("x")).seq == 6)
  }

  @Test func aWipedStateStartsANewLog() throws {
    let dir = TempDir()
    let old = try Self.open(dir).cursor.logID
    try FileManager.default.removeItem(atPath: dir.file(DoorLog.fileName))
    let fresh = try Self.open(dir, random: 0x3C)
    #expect(fresh.cursor.logID != old)
    #expect(try fresh.append(atMs: 1, keypad: "k", decision: .grant("a")).seq == 1)
  }
}
