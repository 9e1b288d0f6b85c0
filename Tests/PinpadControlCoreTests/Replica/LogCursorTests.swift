import PinpadControlCore
import PinpadCore
import Testing

/// The door's log uploaded exactly once (docs/protocol.md, "Replica: the door's log"):
/// the messages, the door's cursor and the site's receipts, as values.
@Suite struct LogCursorTests {
  static let logID = LogCursor.newLogID(random: Array(0..<16))
  static let entry = LogEntry(
    log: logID, seq: 3, atMs: 1_796_619_600_123, device: "door-1", keypad: "front",
    person: "alice", granted: false, reason: "outside_hours", duress: false)

  @Test func aLogIdIs32HexDigitsOf16RandomBytes() {
    #expect(Self.logID == "000102030405060708090a0b0c0d0e0f")
    #expect(LogCursor.isLogID(Self.logID))
    #expect(!LogCursor.isLogID("000102030405060708090A0B0C0D0E0F"))
    #expect(!LogCursor.isLogID("0001"))
  }

  @Test func theLogMessageIsTheDocumentedJSON() {
    #expect(
      Self.entry.json
        == #"{"log":"000102030405060708090a0b0c0d0e0f","seq":3,"at":"2026-12-07T05:00:00.123Z","device":"door-1","keypad":"front","person":"alice","result":"denied","reason":"outside_hours","duress":false}"#
    )
    var grant = Self.entry
    grant.granted = true
    grant.reason = nil
    grant.person = nil
    #expect(grant.json.contains(#""person":null,"result":"granted","reason":null"#))
  }

  @Test func aLogMessageParsesBackToTheSameEntry() {
    #expect(LogEntry(json: Array(Self.entry.json.utf8)) == Self.entry)
    var grant = Self.entry
    grant.granted = true
    grant.reason = nil
    grant.duress = true
    grant.person = nil
    grant.seq = LogCursor.maxSeq
    #expect(LogEntry(json: Array(grant.json.utf8)) == grant)
  }

  @Test func aMessageThatIsNotAnEntryIsRefused() {
    let good = Self.entry.json
    for (from, to) in [
      (#""seq":3"#, #""seq":0"#), (#""seq":3"#, #""seq":3.5"#), (#""seq":3"#, #""seq":"3""#),
      (#""seq":3"#, #""seq":9007199254740994"#),
      (#"0f""#, #"0F""#), (#""at":"2026-12-07T05:00:00.123Z""#, #""at":1796619600123"#),
      (#""device":"door-1""#, #""device":"""#), (#""result":"denied""#, #""result":"maybe""#),
      (#""reason":"outside_hours""#, #""reason":null"#),
      (#""reason":"outside_hours""#, #""reason":"Outside hours""#),
      (#""duress":false"#, #""duress":0"#), (#""person":"alice""#, #""person":1"#),
      (#","duress":false"#, ""),
    ] {
      let changed = good.replacing(from, with: to)
      #expect(changed != good, "\(from)")
      #expect(LogEntry(json: Array(changed.utf8)) == nil, "\(to)")
    }
    var granted = good.replacing(#""result":"denied""#, with: #""result":"granted""#)
    #expect(LogEntry(json: Array(granted.utf8)) == nil, "a grant with a reason")
    let long = "\"keypad\":\"\(String(repeating: "k", count: 257))\""
    granted = good.replacing(#""keypad":"front""#, with: long)
    #expect(LogEntry(json: Array(granted.utf8)) == nil, "a keypad of 257 bytes")
    #expect(LogEntry(json: Array("[1]".utf8)) == nil)
    #expect(LogEntry(json: Array("{".utf8)) == nil)
  }

  @Test func theAckIsTheDocumentedJSON() {
    let ack = LogAck(log: Self.logID, upto: 42)
    #expect(ack.json == #"{"log":"000102030405060708090a0b0c0d0e0f","upto":42}"#)
    #expect(LogAck(json: Array(ack.json.utf8)) == ack)
    #expect(
      LogAck(json: Array(#"{"log":"000102030405060708090a0b0c0d0e0f","upto":0}"#.utf8))?.upto == 0)
    for bad in [
      #"{"log":"x","upto":1}"#, #"{"log":"000102030405060708090a0b0c0d0e0f","upto":-1}"#,
      #"{"log":"000102030405060708090a0b0c0d0e0f","upto":1.5}"#,
      #"{"log":"000102030405060708090a0b0c0d0e0f"}"#, "null",
    ] {
      #expect(LogAck(json: Array(bad.utf8)) == nil, "\(bad)")
    }
  }

  // MARK: the door's cursor

  @Test func entriesAreNumberedFromOneAndPendingUntilAcked() {
    var cursor = LogCursor(logID: Self.logID)
    let got1 = cursor.append()
    #expect(got1 == 1)
    let got2 = cursor.append()
    #expect(got2 == 2)
    let got3 = cursor.append()
    #expect(got3 == 3)
    #expect(cursor.pending == 3)
    let got4 = cursor.toSend(limit: 10)
    #expect(got4 == 1...3)
    let got5 = cursor.toSend(limit: 10)
    #expect(got5 == nil)
    let took6 = cursor.take(LogAck(log: Self.logID, upto: 2))
    #expect(took6)
    #expect(cursor.pending == 1 && cursor.acked == 2)
    let got7 = cursor.append()
    #expect(got7 == 4)
    let got8 = cursor.toSend(limit: 10)
    #expect(got8 == 4...4)
  }

  @Test func whatIsSentFollowsTheWindow() {
    var cursor = LogCursor(logID: Self.logID, last: 10, acked: 0)
    let got9 = cursor.toSend(limit: 4)
    #expect(got9 == 1...4)
    let got10 = cursor.toSend(limit: 4)
    #expect(got10 == 5...8)
    let got11 = cursor.toSend(limit: 4)
    #expect(got11 == 9...10)
    let got12 = cursor.toSend(limit: 0)
    #expect(got12 == nil)
  }

  @Test func afterAReconnectEverythingUnackedIsSentAgain() {
    var cursor = LogCursor(logID: Self.logID)
    for _ in 0..<5 { _ = cursor.append() }
    let got13 = cursor.toSend(limit: 10)
    #expect(got13 == 1...5)
    let took14 = cursor.take(LogAck(log: Self.logID, upto: 2))
    #expect(took14)
    cursor.reconnected()
    let got15 = cursor.toSend(limit: 10)
    #expect(got15 == 3...5)
  }

  @Test func aRestartedDoorResendsFromItsDatabase() {
    var cursor = LogCursor(logID: Self.logID, last: 7, acked: 4)
    #expect(cursor.pending == 3)
    let got16 = cursor.toSend(limit: 100)
    #expect(got16 == 5...7)
    let got17 = cursor.append()
    #expect(got17 == 8)
    // acked beyond last (a damaged row) is held to last.
    #expect(LogCursor(logID: Self.logID, last: 2, acked: 9).pending == 0)
  }

  @Test func acksOfAnotherLogOrOfNothingNewOrOfTheFutureChangeNothing() {
    var cursor = LogCursor(logID: Self.logID, last: 5, acked: 3)
    let before = cursor
    let other = LogCursor.newLogID(random: Array(repeating: 9, count: 16))
    let tookOther = cursor.take(LogAck(log: other, upto: 5))
    #expect(!tookOther)
    let took18 = cursor.take(LogAck(log: Self.logID, upto: 3))
    #expect(!took18)
    let took19 = cursor.take(LogAck(log: Self.logID, upto: 2))
    #expect(!took19)
    let took20 = cursor.take(LogAck(log: Self.logID, upto: 6))
    #expect(!took20)
    #expect(cursor == before)
    let took21 = cursor.take(LogAck(log: Self.logID, upto: 5))
    #expect(took21)
    let rest = cursor.toSend(limit: 10)
    #expect(cursor.pending == 0 && rest == nil)
  }

  // MARK: the site's receipts

  /// What the site says to each (device, log, seq) that arrives, in order.
  static func outcomes(
    _ site: inout LogReceipts, _ arrivals: [(String, String, UInt64)]
  ) -> [LogReceipts.Outcome] {
    arrivals.map { site.receive(device: $0.0, log: $0.1, seq: $0.2) }
  }

  @Test func eachEntryIsStoredOnceAndTheAckCoversWhatIsHeld() {
    var site = LogReceipts()
    #expect(site.ack(device: "door-1", log: Self.logID).upto == 0)
    let said = Self.outcomes(&site, [1, 2, 1, 2].map { ("door-1", Self.logID, $0) })
    #expect(said == [.store, .store, .duplicate, .duplicate])
    #expect(site.ack(device: "door-1", log: Self.logID) == LogAck(log: Self.logID, upto: 2))
  }

  @Test func aGapHoldsTheAckBackUntilItIsFilled() {
    var site = LogReceipts()
    let first = Self.outcomes(&site, [1, 3, 4].map { ("d", Self.logID, $0) })
    #expect(first == [.store, .store, .store])
    #expect(site.ack(device: "d", log: Self.logID).upto == 1)
    let then = Self.outcomes(&site, [3, 2].map { ("d", Self.logID, $0) })
    #expect(then == [.duplicate, .store])
    #expect(site.ack(device: "d", log: Self.logID).upto == 4)
  }

  @Test func entriesFarAheadOfTheGapAreRefusedUnstored() {
    var site = LogReceipts()
    let window = LogReceipts.window
    let said = Self.outcomes(&site, [window + 1, window].map { ("d", Self.logID, $0) })
    #expect(said == [.refused, .store])
    #expect(site.ack(device: "d", log: Self.logID).upto == 0)
  }

  @Test func devicesAndLogsAreCountedApart() {
    var site = LogReceipts()
    let wiped = LogCursor.newLogID(random: Array(repeating: 0xEE, count: 16))
    let said = Self.outcomes(
      &site, [("door-1", Self.logID, 1), ("door-2", Self.logID, 1), ("door-1", wiped, 1)])
    #expect(said == [.store, .store, .store])
    #expect(site.ack(device: "door-1", log: wiped).upto == 1)
    #expect(site.ack(device: "door-3", log: Self.logID).upto == 0)
  }

  @Test func aFloodOfInventedLogsIsBounded() {
    var site = LogReceipts()
    for i in 0..<LogReceipts.maxLogs { _ = site.receive(device: "d\(i)", log: Self.logID, seq: 1) }
    let said = Self.outcomes(&site, [("intruder", Self.logID, 1), ("d7", Self.logID, 2)])
    #expect(said == [.refused, .store])
  }

  @Test func aRestartedSiteKnowsWhatItStored() {
    var site = LogReceipts(restoring: [(device: "door-1", log: Self.logID, upto: 7)])
    let said = Self.outcomes(&site, [7, 8].map { ("door-1", Self.logID, $0) })
    #expect(said == [.duplicate, .store])
    #expect(site.ack(device: "door-1", log: Self.logID).upto == 8)
  }

  /// The two sides through a lossy, repeating channel: every entry arrives at the site
  /// exactly once and the door ends with nothing pending.
  @Test func doorAndSiteAgreeThroughLossAndResends() {
    var door = LogCursor(logID: Self.logID)
    var site = LogReceipts()
    var stored: [UInt64] = []
    var round = 0
    var lcg: UInt64 = 12345
    func coin() -> Bool {
      lcg = lcg &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return lcg >> 62 == 0
    }
    for _ in 0..<500 { _ = door.append() }
    while door.pending > 0, round < 10_000 {
      round += 1
      if coin() { door.reconnected() }
      guard let range = door.toSend(limit: 32) else {
        door.reconnected()
        continue
      }
      for seq in range where !coin() {  // a quarter are lost
        if site.receive(device: "d", log: Self.logID, seq: seq) == .store { stored.append(seq) }
        if coin() {  // and some arrive twice
          let outcome17 = site.receive(device: "d", log: Self.logID, seq: seq)
          #expect(outcome17 == .duplicate)
        }
      }
      if !coin() { _ = door.take(site.ack(device: "d", log: Self.logID)) }
    }
    #expect(door.pending == 0)
    #expect(stored.sorted() == Array(1...500))
    #expect(stored.count == 500)
  }
}
