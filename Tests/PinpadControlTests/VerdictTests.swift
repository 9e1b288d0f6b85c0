import PinpadControlCore
import PinpadCore
import PinpadProgram
import Testing

@testable import PinpadControl

/// What the controller sends and logs for a decision (docs/protocol.md, "Socket:
/// verdict"), what `pinpadctl log` prints of the access log, and the requests and
/// answers of `listen`, `status`, `verdict` and `open`.
@Suite struct VerdictTests {
  static func verdict(_ decision: Decision, id: String = "a1") -> String {
    decision.verdict(id: id).line
  }

  @Test func aGrantIsIdAndResult() {
    #expect(Self.verdict(.grant("bob")) == #"{"type":"verdict","id":"a1","result":"granted"}"#)
  }

  @Test func aDuressGrantSaysDuress() {
    #expect(
      Self.verdict(.grant("dave", duress: true))
        == #"{"type":"verdict","id":"a1","result":"granted","duress":true}"#)
  }

  @Test func aDenialGivesItsReasonAndNeverThePerson() {
    #expect(
      Self.verdict(.deny(.expired, person: "old"))
        == #"{"type":"verdict","id":"a1","result":"denied","reason":"expired"}"#)
  }

  @Test func everyDenialReasonIsSpelledAsTheProtocolSays() {
    let spelled = DenialReason.allCases.map { reason in
      Self.verdict(.deny(reason)).split(separator: "\"").dropLast().last.map(String.init)
    }
    #expect(
      spelled == [
        "unknown", "expired", "not_yet_valid", "outside_hours", "used_up", "wrong_door",
        "disabled", "locked", "unavailable", "stale",
      ])
  }

  @Test func theIdIsSentBackAsItCameEscaped() {
    #expect(
      Self.verdict(.grant("bob"), id: "a\"\n")
        == #"{"type":"verdict","id":"a\"\n","result":"granted"}"#)
  }

  @Test func aGrantIsLoggedWithThePerson() {
    #expect(
      Decision.grant("bob").logLines(id: "a1", place: "keypad door").map(\.plain) == [
        "attempt a1 on keypad door: granted (bob)"
      ])
  }

  @Test func aDuressGrantIsLoggedAsAWarningFirst() {
    #expect(
      Decision.grant("dave", duress: true).logLines(id: "a1", place: "keypad door").map(\.plain)
        == [
          "warning: DURESS: dave on keypad door (attempt a1); the door was opened",
          "attempt a1 on keypad door: granted (dave, duress)",
        ])
  }

  @Test func aDenialIsLoggedWithItsReasonAndThePersonWhenALineMatched() {
    #expect(
      Decision.deny(.expired, person: "old").logLines(id: "a1", place: "pinpadd/d/k").map(\.plain)
        == [
          "attempt a1 on pinpadd/d/k: denied (expired; old)"
        ])
    #expect(
      Decision.deny(.unknown).logLines(id: "a1", place: "keypad door").map(\.plain) == [
        "attempt a1 on keypad door: denied (unknown)"
      ])
  }

  // MARK: pinpadctl log

  static let row = AccessLog.Record(
    at: 1_780_315_200_123, device: "d1", keypad: "front", person: "dave", granted: true,
    reason: nil, duress: true, attempt: "x1")

  @Test func logJsonLinesNameEveryField() {
    #expect(
      LogCommand.jsonLine(Self.row)
        == #"{"at":"2026-06-01T12:00:00.123Z","keypad":"front","device":"d1","person":"dave","result":"granted","duress":true,"id":"x1"}"#
        + "\n")
    var denied = Self.row
    (denied.device, denied.person, denied.granted, denied.reason, denied.duress) = (
      nil, nil, false, "unknown", false
    )
    #expect(
      LogCommand.jsonLine(denied)
        == #"{"at":"2026-06-01T12:00:00.123Z","keypad":"front","person":null,"result":"denied","reason":"unknown","duress":false,"id":"x1"}"#
        + "\n")
  }

  @Test func logTableLinesAreAlignedInTheLocalZone() {
    #expect(
      LogCommand.tableLine(Self.row, zone: LocalZone { _ in 7200 })
        == "2026-06-01 14:00:00  d1/front              dave                  granted (duress)  -\n")
  }

  @Test func logTableCellsAreCleaned() {
    #expect(LogCommand.row(["a\u{1B}[2Jb"]) == "a[2Jb\n")
  }

  @Test func isoTimesCountMillisecondsAlsoBefore1970() {
    #expect(LogCommand.isoUTC(0) == "1970-01-01T00:00:00.000Z")
    #expect(LogCommand.isoUTC(-1) == "1969-12-31T23:59:59.999Z")
  }

  // MARK: listen, status, verdict, open

  static func refusal<T>(_ body: () throws -> T) -> String? { OptionsTests.refusal(body) }

  @Test func verdictSendsWhatItWasGiven() throws {
    let options = try VerdictCommand.Options.parse(["a1", "granted", "--message", "hi", "--duress"])
    #expect(throws: Never.self) { try options.validate() }
    #expect(
      options.request.line
        == #"{"type":"verdict","id":"a1","result":"granted","message":"hi","duress":true}"#)
  }

  @Test(arguments: [[], ["a1"], ["a1", "maybe"]])
  func verdictNeedsAnIdAndAResult(arguments: [String]) {
    #expect(
      Self.refusal { try VerdictCommand.Options.parse(arguments) }
        == "verdict ID granted|denied [--message TEXT] [--duress]")
  }

  @Test func verdictRefusesAnUnknownOptionAndDuressWithDenied() throws {
    #expect(
      Self.refusal { try VerdictCommand.Options.parse(["a", "denied", "--x"]) }
        == "unexpected --x")
    let denied = try VerdictCommand.Options.parse(["a", "denied", "--duress"])
    #expect(Self.refusal { try denied.validate() } == "verdict: --duress goes with granted")
  }

  @Test func openTakesOneDoorName() throws {
    #expect(
      try OpenCommand.Options.parse(["front"]).request.line == #"{"type":"open","door":"front"}"#)
    #expect(Self.refusal { try OpenCommand.Options.parse([]) } == "open DOOR")
    #expect(Self.refusal { try OpenCommand.Options.parse(["a", "b"]) } == "open DOOR")
    let bad = try OpenCommand.Options.parse(["a b"])
    #expect(Self.refusal { try bad.validate() } == "open: a b is not a door name")
  }

  @Test func listenAndStatusTakeNoArguments() throws {
    #expect(throws: Never.self) { try ListenCommand.parse([]) }
    #expect(throws: Never.self) { try StatusCommand.parse([]) }
    #expect(StatusCommand.request.line == #"{"type":"status"}"#)
    #expect(Self.refusal { try ListenCommand.parse(["x"]) } == "listen takes no arguments")
    #expect(Self.refusal { try StatusCommand.parse(["x"]) } == "status takes no arguments")
  }

  static func decoded(_ line: String) -> DaemonLine? {
    try? DaemonLine.decode(Array(line.utf8)).get()
  }

  @Test func statusWaitsForTheStatusWhateverElseComes() {
    let answer = { StatusCommand.answer(Self.decoded($0)) }
    #expect(answer(#"{"type":"status","keypads":[]}"#) == .done(print: true))
    #expect(answer(#"{"type":"error","reason":"x"}"#) == .wait)
    #expect(answer("not json") == .wait)
  }

  @Test func verdictIsDoneWhenTheDaemonTakesItsIdOrRefused() {
    let options = VerdictCommand.Options(id: "a1", result: "granted")
    let answer = { options.answer(Self.decoded($0)) }
    #expect(answer(#"{"type":"verdict","id":"a2","result":"granted"}"#) == .wait)
    #expect(answer(#"{"type":"verdict","id":"a1","result":"granted"}"#) == .done(print: false))
    #expect(answer(#"{"type":"error","reason":"unknown id"}"#) == .refused("unknown id"))
    // Not the protocol's (an error has a reason): passed over, as any line that is not.
    #expect(answer(#"{"type":"error"}"#) == .wait)
    #expect(answer(#"{"type":"verdict","id":"a1"}"#) == .wait)
  }

  @Test func openIsDoneOnlyWhenItsDoorUnlockedRemotely() {
    let options = OpenCommand.Options(door: "front")
    let answer = { options.answer(Self.decoded($0)) }
    #expect(
      answer(#"{"type":"door","door":"front","event":"unlocked","by":"remote"}"#)
        == .done(print: false))
    #expect(answer(#"{"type":"door","door":"front","event":"unlocked","by":"code"}"#) == .wait)
    #expect(answer(#"{"type":"door","door":"back","event":"unlocked","by":"remote"}"#) == .wait)
    #expect(answer(#"{"type":"error","reason":"no such door"}"#) == .refused("no such door"))
  }
}
