import PinpadCore
import Testing

@testable import PinpadControlCore

/// Decodes `text` as a line from the daemon (test lines only: a String of digits is fine
/// here).
private func decode(_ text: String) -> Result<DaemonLine, DaemonLine.Problem> {
  DaemonLine.decode(Array(text.utf8))
}

private func decoded(_ text: String) -> DaemonLine? {
  if case .success(let line) = decode(text) { return line }
  return nil
}

private func problem(_ text: String) -> DaemonLine.Problem? {
  if case .failure(let problem) = decode(text) { return problem }
  return nil
}

/// The `code` line's digits as the test reads them back from the line's bytes.
private func digits(_ text: String, _ range: Range<Int>?) -> String? {
  range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) }
}

/// The daemon's lines as `DaemonMessage` writes them, read back by the controller's side
/// (docs/protocol.md, "Socket").
@Suite struct DaemonLineTests {
  @Test func helloIsDecodedFromTheDaemonsOwnLine() {
    let line = String(DaemonMessage.hello(version: "0.2.0").dropLast())
    #expect(decoded(line) == .hello(protocolVersion: 1, version: "0.2.0"))
  }

  @Test func aCodeLineKeepsItsDigitsAsRangesIntoTheLine() {
    let line =
      #"{"type":"code","id":"8fc467a4dfc6ec4a1724bf19f09699e8","keypad":"default","code":"0123","at":"2026-12-07T01:54:55.579Z"}"#
    guard case .code(let code)? = decoded(line) else {
      Issue.record("not a code line")
      return
    }
    #expect(code.id == "8fc467a4dfc6ec4a1724bf19f09699e8")
    #expect(code.keypad == "default")
    #expect(digits(line, code.code) == "0123")
    #expect(code.card == nil)
  }

  @Test func aCodeLineWrittenByTheDaemonWithACardHasBothRanges() {
    let pin = SecretDigits()
    for d: UInt8 in [1, 2, 3, 4] { pin.append(d) }
    let card = SecretDigits()
    for d: UInt8 in [0, 0, 1, 2, 3, 4, 5, 6, 7, 8] { card.append(d) }
    var bytes: [UInt8] = []
    DaemonMessage.appendCode(
      id: "0aed53877643701997df8124f984f7f7", keypad: "front", digits: pin, card: card,
      at: "2026-12-07T01:55:08.375Z", to: &bytes)
    let text = String(decoding: bytes.dropLast(), as: UTF8.self)
    guard case .code(let code)? = decoded(text) else {
      Issue.record("not a code line")
      return
    }
    #expect(digits(text, code.code) == "1234")
    #expect(digits(text, code.card) == "0012345678")
    #expect(code.keypad == "front")
  }

  @Test func aCardAloneHasNoCodeRange() {
    let line = #"{"type":"code","id":"a1","keypad":"front","card":"0012345678","at":"x"}"#
    guard case .code(let code)? = decoded(line) else {
      Issue.record("not a code line")
      return
    }
    #expect(code.code == nil)
    #expect(digits(line, code.card) == "0012345678")
  }

  @Test func zeroSecretsZeroesTheDigitsInPlaceAndNothingElse() {
    var bytes = Array(#"{"type":"code","id":"a1","keypad":"k","code":"98","card":"76"}"#.utf8)
    guard case .success(.code(let code)) = DaemonLine.decode(bytes) else {
      Issue.record("not a code line")
      return
    }
    bytes.withUnsafeMutableBufferPointer { code.zeroSecrets(in: $0) }
    #expect(!bytes.contains(UInt8(ascii: "9")) && !bytes.contains(UInt8(ascii: "7")))
    #expect(bytes.filter { $0 == 0 }.count == 4)
    #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"type":"code","id":"a1""#))
  }

  @Test func entryLinesOfEveryEvent() {
    for event in EntryEvent.allCases {
      let line = String(
        DaemonMessage.entry(keypad: "front door", event: event, length: 3).dropLast())
      #expect(decoded(line) == .entry(keypad: "front door", event: event, length: 3))
    }
  }

  @Test func verdictEventsOfEveryResultKeepADenialsReasonOnly() {
    let denied = String(
      DaemonMessage.verdict(id: "fdee1a8e", result: "denied", reason: "outside_hours").dropLast())
    #expect(decoded(denied) == .verdict(id: "fdee1a8e", result: .denied, reason: "outside_hours"))
    let timeout = String(DaemonMessage.verdict(id: "ab", result: "timeout").dropLast())
    #expect(decoded(timeout) == .verdict(id: "ab", result: .timeout, reason: nil))
    let granted = #"{"type":"verdict","id":"ab","result":"granted","reason":"unknown"}"#
    #expect(decoded(granted) == .verdict(id: "ab", result: .granted, reason: nil))
  }

  @Test func lockoutKeypadAndAlarmLines() {
    #expect(
      decoded(String(DaemonMessage.lockout(keypad: "default", seconds: 30).dropLast()))
        == .lockout(keypad: "default", seconds: 30))
    #expect(
      decoded(
        String(
          DaemonMessage.keypad(
            name: "front", added: true, device: "/dev/input/event3", role: .cardReader
          ).dropLast()))
        == .keypad(keypad: "front", added: true, device: "/dev/input/event3", role: .cardReader))
    #expect(
      decoded(#"{"type":"keypad","keypad":"front","event":"removed","device":"/dev/x"}"#)
        == .keypad(keypad: "front", added: false, device: "/dev/x", role: .keypad))
    #expect(
      decoded(String(DaemonMessage.alarm(reason: "duress", keypad: "door", id: "ae81").dropLast()))
        == .alarm(reason: "duress", keypad: "door", id: "ae81"))
  }

  @Test func doorLinesKeepByForUnlockedOnly() {
    #expect(
      decoded(#"{"type":"door","door":"front","event":"unlocked","by":"remote"}"#)
        == .door(door: "front", event: "unlocked", by: "remote"))
    #expect(
      decoded(#"{"type":"door","door":"front","event":"locked","by":"remote"}"#)
        == .door(door: "front", event: "locked", by: nil))
    #expect(
      problem(#"{"type":"door","door":"front","event":"exploded"}"#)
        == .badMember(type: "door", member: "event"))
    #expect(
      problem(#"{"type":"door","door":"../etc","event":"opened"}"#)
        == .badMember(type: "door", member: "door"))
  }

  @Test func errorAndStatusLines() {
    #expect(
      decoded(String(DaemonMessage.error("forbidden").dropLast())) == .error(reason: "forbidden"))
    let status = String(
      DaemonMessage.status([("version", .string("0.2.0")), ("pending", .number(0))]).dropLast())
    guard case .status(let value)? = decoded(status) else {
      Issue.record("not a status line")
      return
    }
    #expect(value["version"]?.stringValue == "0.2.0")
  }

  @Test func anUnknownTypeIsPassedOnWithItsKeypad() {
    #expect(
      decoded(#"{"type":"battery","keypad":"front","level":3}"#)
        == .other(type: "battery", keypad: "front"))
    #expect(decoded(#"{"type":"weather"}"#) == .other(type: "weather", keypad: nil))
  }

  @Test func aCRBeforeTheNewlineIsIgnored() {
    #expect(decoded(#"{"type":"error","reason":"x"}"# + "\r") == .error(reason: "x"))
    let code = #"{"type":"code","id":"a1","keypad":"k","code":"12"}"# + "\r"
    guard case .code(let line)? = decoded(code) else {
      Issue.record("not a code line")
      return
    }
    #expect(digits(code, line.code) == "12")
  }

  @Test func linesThatAreNotObjectsOrHaveNoTypeAreRefused() {
    #expect(problem("") == .notAnObject)
    #expect(problem("hello") == .notAnObject)
    #expect(problem(#"["type","code"]"#) == .notAnObject)
    #expect(problem(#"{"type":"code","id":"a1""#) == .notAnObject)
    #expect(problem(#"{"id":"a1"}"#) == .missingType)
    #expect(problem(#"{"type":1}"#) == .missingType)
  }

  @Test func codeLinesWithBadDigitsAreRefused() {
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","code":"12a4"}"#)
        == .badMember(type: "code", member: "code"))
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","code":""}"#)
        == .badMember(type: "code", member: "code"))
    let long = String(repeating: "1", count: SecretDigits.capacity + 1)
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","code":"\#(long)"}"#)
        == .badMember(type: "code", member: "code"))
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","card":"\u0031"}"#)
        == .badMember(type: "code", member: "card"))
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","code":1234}"#)
        == .badMember(type: "code", member: "code"))
  }

  @Test func aCodeLineThatGivesASecretTwiceIsRefused() {
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","code":"1","code":"2"}"#)
        == .badMember(type: "code", member: "code"))
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","card":"1","card":"2"}"#)
        == .badMember(type: "code", member: "card"))
  }

  @Test func hostileIdsAndKeypadsInCodeLinesAreRefused() {
    #expect(
      problem(#"{"type":"code","keypad":"k","code":"1"}"#) == .badMember(type: "code", member: "id")
    )
    #expect(
      problem(#"{"type":"code","id":"a\n1","keypad":"k","code":"1"}"#)
        == .badMember(type: "code", member: "id"))
    let longID = String(repeating: "a", count: DaemonLine.maxIDBytes + 1)
    #expect(
      problem(#"{"type":"code","id":"\#(longID)","keypad":"k","code":"1"}"#)
        == .badMember(type: "code", member: "id"))
    #expect(
      problem(#"{"type":"code","id":"a1","code":"1"}"#)
        == .badMember(type: "code", member: "keypad"))
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"bad\q","code":"1"}"#)
        == .badMember(type: "code", member: "keypad"))
    // An escaped keypad name is read as JSON reads it.
    guard case .code(let code)? = decoded(#"{"type":"code","id":"a1","keypad":"a\"b","code":"1"}"#)
    else {
      Issue.record("not a code line")
      return
    }
    #expect(code.keypad == #"a"b"#)
  }

  @Test func oversizedLinesAreRefusedUnread() {
    let padding = String(repeating: " ", count: DaemonLine.maxCodeLineBytes)
    #expect(
      problem(#"{"type":"code","id":"a1","keypad":"k","code":"1"\#(padding)}"#) == .tooLong)
    let huge = String(repeating: "x", count: DaemonLine.maxBytes)
    #expect(problem(#"{"type":"error","reason":"\#(huge)"}"#) == .tooLong)
    // A status of 60 KiB is fine.
    let big = String(repeating: "x", count: 60 * 1024)
    #expect(decoded(#"{"type":"error","reason":"\#(big)"}"#) == .error(reason: big))
  }

  @Test func knownTypesWithBadMembersNameTheMember() {
    #expect(
      problem(#"{"type":"entry","keypad":"k","event":"typed","length":1}"#)
        == .badMember(type: "entry", member: "event"))
    #expect(
      problem(#"{"type":"entry","keypad":"k","event":"started","length":-1}"#)
        == .badMember(type: "entry", member: "length"))
    #expect(
      problem(#"{"type":"entry","keypad":"k","event":"started","length":1.5}"#)
        == .badMember(type: "entry", member: "length"))
    #expect(
      problem(#"{"type":"lockout","keypad":"k","seconds":"30"}"#)
        == .badMember(type: "lockout", member: "seconds"))
    #expect(
      problem(#"{"type":"verdict","id":"a","result":"maybe"}"#)
        == .badMember(type: "verdict", member: "result"))
    #expect(
      problem(#"{"type":"verdict","id":"a","result":"denied","reason":"Nope!"}"#)
        == .badMember(type: "verdict", member: "reason"))
    #expect(
      problem(#"{"type":"keypad","keypad":"k","event":"added","device":"d","role":"mouse"}"#)
        == .badMember(type: "keypad", member: "role"))
    #expect(
      problem(#"{"type":"hello","protocol":1}"#) == .badMember(type: "hello", member: "version"))
    #expect(problem(#"{"type":"error"}"#) == .badMember(type: "error", member: "reason"))
  }

  @Test func theLastTypeCountsAsInJSON() {
    #expect(
      decoded(#"{"type":"code","type":"error","reason":"r"}"#) == .error(reason: "r"))
  }
}

/// The controller's requests (docs/protocol.md, "Socket: verdict", "Socket: status
/// request", "Socket: open"): written, then read back by the daemon's own parser.
@Suite struct ControllerRequestTests {
  private func parsed(_ request: ClientRequest) -> ClientRequest? {
    try? ClientRequest.parse(Array(request.line.utf8)).get()
  }

  @Test func verdictsAreWrittenInTheDocumentsOrder() {
    let granted = ClientRequest.verdict(
      id: "8fc467a4dfc6ec4a1724bf19f09699e8", granted: true, message: "Welcome, Alice")
    #expect(
      granted.line
        == #"{"type":"verdict","id":"8fc467a4dfc6ec4a1724bf19f09699e8","result":"granted","message":"Welcome, Alice"}"#
    )
    let denied = ClientRequest.verdict(
      id: "ab", granted: false, message: nil, duress: true, reason: "expired")
    #expect(
      denied.line
        == #"{"type":"verdict","id":"ab","result":"denied","duress":true,"reason":"expired"}"#)
  }

  @Test func everyRequestReadsBackAsItself() {
    let requests: [ClientRequest] = [
      .status, .open(door: "front"),
      .verdict(id: "ab", granted: true, message: nil),
      .verdict(id: "ab", granted: false, message: "No", duress: true, reason: "used_up"),
    ]
    for request in requests { #expect(parsed(request) == request) }
  }

  @Test func aMessageIsEscapedSoTheLineStaysOneLine() {
    let request = ClientRequest.verdict(id: "ab", granted: true, message: "a\"b\nc")
    #expect(!request.line.contains("\n"))
    #expect(parsed(request) == .verdict(id: "ab", granted: true, message: "a\"b c"))
  }

  @Test func statusAndOpenLines() {
    #expect(ClientRequest.status.line == #"{"type":"status"}"#)
    #expect(ClientRequest.open(door: "front").line == #"{"type":"open","door":"front"}"#)
    #expect(BridgeCore.statusRequest == ClientRequest.status.line)
  }
}

@Test("a code type the byte reading does not see is refused, never passed on as text")
func hiddenCodeTypes() {
  #expect(
    DaemonLine.decode(Array(#"{"type":"\u0063ode","id":"a","keypad":"k","code":"1"}"#.utf8))
      == .failure(.badMember(type: "code", member: "type")))
}

@Suite struct CodePayloadTests {
  private func payload(_ text: String) -> Result<CodeLine, DaemonLine.Problem> {
    Array(text.utf8).withUnsafeBufferPointer { CodeLine.decode(payload: $0) }
  }

  @Test func aBridgesCodeLineIsACodePayload() {
    let text = #"{"type":"code","id":"a1","keypad":"front","code":"1234","at":"x"}"#
    guard case .success(let code) = payload(text) else {
      Issue.record("refused")
      return
    }
    #expect(code.keypad == "front" && code.code != nil)
  }

  @Test func aPayloadNeedsNeitherTypeNorKeypadButAnIdAndDigits() {
    guard case .success(let code) = payload(#"{"id":"a1","card":"42"}"#) else {
      Issue.record("refused")
      return
    }
    #expect(code.keypad == "" && code.code == nil && code.card != nil)
    #expect(payload(#"{"id":"a1"}"#) == .failure(.badMember(type: "code", member: "code")))
    #expect(
      payload(#"{"type":"verdict","id":"a1","code":"1"}"#)
        == .failure(.badMember(type: "code", member: "type")))
    #expect(payload(#"{"code":"1"}"#) == .failure(.badMember(type: "code", member: "id")))
  }

  /// Any peer on the broker may publish a code message: its id is taken as any text up
  /// to 128 bytes (docs/protocol.md, "Fleet: topics"), where a daemon's line must carry
  /// a printable one.
  @Test func aPayloadsIdIsAnyTextUpTo128Bytes() {
    let hostile = "e\u{1B}[2J\u{202E}\u{9B}31m"
    guard case .success(let code) = payload(#"{"id":"\#(hostile)","code":"1111"}"#) else {
      Issue.record("refused")
      return
    }
    #expect(code.id == hostile)
    #expect(
      DaemonLine.decode(Array(#"{"type":"code","id":"\#(hostile)","keypad":"k","code":"1"}"#.utf8))
        == .failure(.badMember(type: "code", member: "id")), "a daemon's ids are printable")
    let longest = String(repeating: "x", count: 128)
    #expect((try? payload(#"{"id":"\#(longest)","code":"1"}"#).get())?.id == longest)
    #expect(
      payload(#"{"id":"\#(longest)y","code":"1"}"#)
        == .failure(.badMember(type: "code", member: "id")))
    #expect(payload(#"{"id":"","code":"1"}"#) == .failure(.badMember(type: "code", member: "id")))
  }

  @Test func aPayloadsIdHasItsEscapesRead() {
    #expect((try? payload(#"{"id":"a\"b\u0041","code":"1"}"#).get())?.id == "a\"bA")
    #expect(
      payload(#"{"id":"a\q","code":"1"}"#) == .failure(.badMember(type: "code", member: "id")),
      "not JSON's escapes")
  }

  @Test func aPayloadsDigitsAreDigitsGivenOnce() {
    #expect(
      payload(#"{"id":"a","code":"12a4"}"#) == .failure(.badMember(type: "code", member: "code")))
    #expect(
      payload(#"{"id":"a","card":"1","card":"2"}"#)
        == .failure(.badMember(type: "code", member: "card")))
    let long = String(repeating: "1", count: 33)
    #expect(
      payload(#"{"id":"a","code":"\#(long)"}"#)
        == .failure(.badMember(type: "code", member: "code")))
    let padded = #"{"id":"a","code":"1","pad":""# + String(repeating: "x", count: 4096) + #""}"#
    #expect(payload(padded) == .failure(.tooLong))
  }

  @Test func aVerdictPayloadIsTheLineWithoutItsType() {
    let verdict = ClientRequest.verdict(
      id: "69cc", granted: false, message: nil, duress: false, reason: "wrong_door")
    #expect(verdict.verdictPayload == #"{"id":"69cc","result":"denied","reason":"wrong_door"}"#)
    #expect(ClientRequest.status.verdictPayload == nil)
  }
}
