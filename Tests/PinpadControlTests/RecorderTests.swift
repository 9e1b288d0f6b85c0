import PinpadControlCore
import PinpadCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// `DecisionRecorder`: the core's `.record` effect committed to a real SQLite access
/// log in a temporary folder (docs/protocol.md, "Access log").
@Suite struct RecorderTests {
  static func record(
    _ decision: Decision, at: Int64 = 1_000_000, keypad: String = "k", attempt: String = "a"
  ) -> DecisionCore.Record {
    DecisionCore.Record(at: at, device: "d", keypad: keypad, attempt: attempt, decision: decision)
  }

  static func rows(_ log: AccessLog) throws -> [AccessLog.Record] {
    var rows: [AccessLog.Record] = []
    try log.query(AccessLog.Filter()) { rows.append($0) }
    return rows
  }

  @Test func aFloodOfLockedDenialsIsRecordedOnlyUpToItsBound() throws {
    let dir = TempDir()
    let log = try AccessLog(directory: dir.path)
    var said: [String] = []
    let recorder = DecisionRecorder(log: log, say: { said.append($0.plain) })
    var now: Int64 = 1_000_000
    for n in 0..<150 {
      #expect(recorder.record(Self.record(.deny(.locked), at: now, attempt: "l\(n)")) == .kept)
    }
    now += 2000  // two more may be recorded
    for n in 150..<153 {
      _ = recorder.record(Self.record(.deny(.locked), at: now, attempt: "l\(n)"))
    }
    #expect(try Self.rows(log).count == DecisionRecorder.lockedBurst + 2)
    #expect(said == ["50 denials while locked were answered but not recorded (a flood)"])
    // Other decisions are never left out.
    for n in 0..<20 {
      _ = recorder.record(Self.record(.deny(.unknown), at: now, attempt: "u\(n)"))
    }
    #expect(try Self.rows(log).count == DecisionRecorder.lockedBurst + 22)
  }

  @Test func theLastUseIsGrantedOnceThenTheLogDeniesUsedUp() throws {
    let dir = TempDir()
    let recorder = DecisionRecorder(log: try AccessLog(directory: dir.path), say: { _ in })
    let grant = Decision.grant("guest", uses: 2)
    #expect(recorder.record(Self.record(grant)) == .kept)
    #expect(recorder.record(Self.record(grant)) == .kept)
    #expect(recorder.record(Self.record(grant)) == .denied(.usedUp))
    #expect(recorder.record(Self.record(.grant("other"))) == .kept, "uncounted lines")
  }

  @Test func aRowHoldsTheDecisionAndNeverASecret() throws {
    let dir = TempDir()
    let log = try AccessLog(directory: dir.path)
    let recorder = DecisionRecorder(log: log, say: { _ in })
    _ = recorder.record(Self.record(.grant("dave", duress: true), attempt: "x1"))
    _ = recorder.record(Self.record(.deny(.expired, person: "old"), attempt: "x2"))
    _ = recorder.record(Self.record(.deny(.unknown), attempt: "x3"))
    let rows = try Self.rows(log)
    #expect(
      rows == [
        AccessLog.Record(
          at: 1_000_000, device: "d", keypad: "k", person: "dave", granted: true, reason: nil,
          duress: true, attempt: "x1"),
        AccessLog.Record(
          at: 1_000_000, device: "d", keypad: "k", person: "old", granted: false,
          reason: "expired", attempt: "x2"),
        AccessLog.Record(
          at: 1_000_000, device: "d", keypad: "k", person: nil, granted: false,
          reason: "unknown", attempt: "x3"),
      ])
  }

  @Test func recordingPrunesWhatIsOlderThanKeepDays() throws {
    let dir = TempDir()
    let log = try AccessLog(directory: dir.path)
    let day = DecisionRecorder.dayMs
    let now: Int64 = 100 * day
    for (n, age) in [400, 40, 10, 0].enumerated() {
      _ = try log.commit(
        AccessLog.Record(
          at: now - Int64(age) * day, device: nil, keypad: "door", person: "p\(n)",
          granted: true, reason: nil))
    }
    let recorder = DecisionRecorder(log: log, keepDays: 5, say: { _ in })
    _ = recorder.record(Self.record(.deny(.unknown), at: now))
    #expect(try Self.rows(log).map(\.person) == ["p3", nil])
  }
}
