import PinpadControlCore
import PinpadCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// What `serve` and the fleet controller make of a decoded code message: the attempt
/// (`Attempt(_:in:)`, its secrets in place), the one verdict encoder
/// (`Decision.verdict`, written by `ClientRequest`), and `serve`'s answer on real files.
@Suite struct WireTests {
  /// Decodes `json` as a fleet payload and hands the attempt and the line to `body`.
  static func attempt<T>(
    _ json: String, device: String? = nil, keypad: String? = nil, place: String? = nil,
    _ body: (Attempt, UnsafeMutableBufferPointer<UInt8>) -> T
  ) -> T? {
    var bytes = Array(json.utf8)
    return bytes.withUnsafeMutableBufferPointer { line in
      guard case .success(let code) = CodeLine.decode(payload: UnsafeBufferPointer(line)) else {
        return nil
      }
      return body(Attempt(code, in: line, device: device, keypad: keypad, place: place), line)
    }
  }

  static func text(_ buffer: UnsafeMutableBufferPointer<UInt8>?) -> String? {
    buffer.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func anAttemptsSecretsAreTheDigitsInTheLine() {
    let seen = Self.attempt(
      #"{"type":"code","id":"a1","keypad":"front","code":"2468","card":"0099"}"#
    ) {
      attempt, _ in
      (Self.text(attempt.code), Self.text(attempt.card), attempt.keypad, attempt.place)
    }
    #expect(seen?.0 == "2468" && seen?.1 == "0099")
    #expect(seen?.2 == "front" && seen?.3 == "front", "the lockout counts by the keypad")
  }

  @Test func zeroingAnAttemptsSecretsZeroesTheLinesDigits() {
    let line = Self.attempt(#"{"id":"a1","code":"2468"}"#) { attempt, line in
      attempt.code.map { $0.update(repeating: 0) }
      return Array(line)
    }
    #expect(
      line.map { String(decoding: $0, as: UTF8.self) } == #"{"id":"a1","code":"\#0\#0\#0\#0"}"#)
  }

  @Test func anAttemptWithoutACodeHasNoCodeBuffer() {
    let seen = Self.attempt(#"{"id":"a1","card":"42"}"#) { attempt, _ in
      (attempt.code == nil, Self.text(attempt.card))
    }
    #expect(seen?.0 == true && seen?.1 == "42")
  }

  @Test func anAttemptsIdAndKeypadAreCleanedForTheLog() {
    let seen = Self.attempt(#"{"id":"e\#u{1B}[2J\#u{202E}x","keypad":"k\#u{9B}1","code":"1"}"#) {
      attempt, _ in (attempt.id, attempt.keypad)
    }
    #expect(seen?.0 == "e[2Jx" && seen?.1 == "k1")
  }

  @Test func aFleetAttemptTakesItsDeviceKeypadAndPlaceFromTheTopic() {
    let seen = Self.attempt(
      #"{"id":"a1","keypad":"ignored","code":"1"}"#, device: "d1", keypad: "main",
      place: "pinpadd/d1/main"
    ) { attempt, _ in (attempt.door, attempt.place) }
    #expect(seen?.0 == "d1/main" && seen?.1 == "pinpadd/d1/main")
  }

  // MARK: one verdict encoder

  @Test func aGrantsVerdictIsTheRequestOfTheProtocol() {
    #expect(
      Decision.grant("bob").verdict(id: "a1")
        == .verdict(id: "a1", granted: true, message: nil, duress: false, reason: nil))
    #expect(
      Decision.grant("dave", duress: true).verdict(id: "a1")
        == .verdict(id: "a1", granted: true, message: nil, duress: true, reason: nil))
  }

  @Test("a denial's verdict carries its reason, and duress only for a duress line")
  func aDenialsVerdictCarriesItsReasonAndDuressOnlyForADuressLine() {
    #expect(
      Decision.deny(.wrongDoor, person: "bob").verdict(id: "a1")
        == .verdict(id: "a1", granted: false, message: nil, duress: false, reason: "wrong_door"))
    #expect(
      Decision.deny(.wrongDoor, person: "dave", duress: true).verdict(id: "a1")
        == .verdict(id: "a1", granted: false, message: nil, duress: true, reason: "wrong_door"))
  }

  @Test func aFleetVerdictIsThePayloadWithoutType() {
    #expect(
      Decision.deny(.locked).verdict(id: "g1").verdictPayload
        == #"{"id":"g1","result":"denied","reason":"locked"}"#)
    #expect(
      Decision.grant("dave", duress: true).verdict(id: "x").verdictPayload
        == #"{"id":"x","result":"granted","duress":true}"#)
  }

  @Test func aHostileIdGoesBackAsItCameEscaped() {
    #expect(
      Decision.grant("bob").verdict(id: "e\u{1B}[\u{202E}").verdictPayload
        == #"{"id":"e\u001b[\#u{202E}","result":"granted"}"#)
  }

  // MARK: serve's answer, on real files

  /// `serve`'s answer to the daemon's line `json` with alice's codes file, and the
  /// line's bytes afterwards.
  static func serveAnswer(_ json: String) throws -> (verdict: String, log: [String], [UInt8]) {
    let dir = TempDir()
    let controller = try ControllerShellTests.controller(
      dir, codes: ControllerShellTests.codes(dir, ControllerShellTests.aliceLine))
    var bytes = Array(json.utf8)
    let (verdict, log) = try bytes.withUnsafeMutableBufferPointer { line in
      guard case .code(let code) = try DaemonLine.decode(UnsafeBufferPointer(line)).get() else {
        throw DaemonLine.Problem.missingType
      }
      return ServeCommand.answer(code, in: line, controller)
    }
    return (verdict, log.map(\.plain), bytes)
  }

  @Test func serveAnswersACodeLineWithItsVerdictAndLogAndZeroesTheDigits() throws {
    let (verdict, log, bytes) = try Self.serveAnswer(
      #"{"type":"code","id":"a1","keypad":"front","code":"2468"}"#)
    #expect(verdict == #"{"type":"verdict","id":"a1","result":"granted"}"#)
    #expect(log == ["attempt a1 on keypad front: granted (alice)"])
    #expect(!String(decoding: bytes, as: UTF8.self).contains("2468"))
  }

  @Test func serveDeniesAWrongCodeWithItsReason() throws {
    let (verdict, log, _) = try Self.serveAnswer(
      #"{"type":"code","id":"b2","keypad":"side","code":"1111"}"#)
    #expect(verdict == #"{"type":"verdict","id":"b2","result":"denied","reason":"unknown"}"#)
    #expect(log == ["attempt b2 on keypad side: denied (unknown)"])
  }
}
