import PinpadCore
import Testing

private func request(_ line: String) -> Result<ClientRequest, RequestError> {
  ClientRequest.parse(Array(line.utf8))
}

/// Parses one daemon line: it must end with exactly one newline and be a JSON object.
private func object(_ line: String) throws -> JSONValue {
  #expect(line.hasSuffix("\n"))
  let body = line.dropLast()
  #expect(!body.contains("\n") && !body.contains("\r"), "one line")
  let value = try JSONValue.parse(String(body))
  guard case .object = value else { throw NotAnObject() }
  return value
}

private struct NotAnObject: Error {}

/// The member names of an object, in order.
private func names(_ value: JSONValue) -> [String] {
  guard case .object(let members) = value else { return [] }
  return members.map(\.0)
}

private func digits(_ values: [UInt8]) -> SecretDigits {
  let digits = SecretDigits()
  for value in values { digits.append(value) }
  return digits
}

/// A row of the request table: `line` parses to `request`.
struct ValidRequestCase: Sendable, CustomTestStringConvertible {
  var name: String
  var line: String
  var request: ClientRequest
  var testDescription: String { name }
}

/// A row of the refusal table: `line` is refused with `reason`.
struct InvalidRequestCase: Sendable, CustomTestStringConvertible {
  var name: String
  var line: String
  var reason: String
  var testDescription: String { name }
}

@Suite("Protocol messages")
struct ProtocolMessageTests {
  // MARK: - Client requests

  @Test(
    "valid requests parse",
    arguments: [
      ValidRequestCase(name: "status", line: #"{"type":"status"}"#, request: .status),
      ValidRequestCase(
        name: "status with extra members", line: #"{"type":"status","verbose":true}"#,
        request: .status),
      ValidRequestCase(
        name: "granted", line: #"{"type":"verdict","id":"ab-1","result":"granted"}"#,
        request: .verdict(id: "ab-1", granted: true, message: nil)),
      ValidRequestCase(
        name: "denied", line: #"{"type":"verdict","id":"ab-2","result":"denied"}"#,
        request: .verdict(id: "ab-2", granted: false, message: nil)),
      ValidRequestCase(
        name: "with a message",
        line: #"{"type":"verdict","id":"x","result":"granted","message":"Welcome, Ann"}"#,
        request: .verdict(id: "x", granted: true, message: "Welcome, Ann")),
      ValidRequestCase(
        name: "with a null message",
        line: #"{"type":"verdict","id":"x","result":"denied","message":null}"#,
        request: .verdict(id: "x", granted: false, message: nil)),
      ValidRequestCase(
        name: "with an empty message",
        line: #"{"type":"verdict","id":"x","result":"denied","message":""}"#,
        request: .verdict(id: "x", granted: false, message: "")),
      ValidRequestCase(
        name: "members in any order, with whitespace",
        line: #" { "result" : "granted" , "id" : "q" , "type" : "verdict" } "#,
        request: .verdict(id: "q", granted: true, message: nil)),
      ValidRequestCase(
        name: "escaped text in the message (a newline shows as a space)",
        line: #"{"type":"verdict","id":"i","result":"denied","message":"Door \"B\"\n\u00e9"}"#,
        request: .verdict(id: "i", granted: false, message: "Door \"B\" é")),
      ValidRequestCase(
        name: "a trailing carriage return", line: "{\"type\":\"status\"}\r", request: .status),
      ValidRequestCase(
        name: "duress", line: #"{"type":"verdict","id":"d","result":"granted","duress":true}"#,
        request: .verdict(id: "d", granted: true, message: nil, duress: true)),
      ValidRequestCase(
        name: "duress false or null",
        line: #"{"type":"verdict","id":"d","result":"granted","duress":false}"#,
        request: .verdict(id: "d", granted: true, message: nil, duress: false)),
      ValidRequestCase(
        name: "duress null", line: #"{"type":"verdict","id":"d","result":"denied","duress":null}"#,
        request: .verdict(id: "d", granted: false, message: nil)),
      ValidRequestCase(
        name: "a denial's reason",
        line: #"{"type":"verdict","id":"r","result":"denied","reason":"outside_hours"}"#,
        request: .verdict(id: "r", granted: false, message: nil, reason: "outside_hours")),
      ValidRequestCase(
        name: "a grant's reason is dropped",
        line: #"{"type":"verdict","id":"r","result":"granted","reason":"expired"}"#,
        request: .verdict(id: "r", granted: true, message: nil)),
    ])
  func validRequests(_ row: ValidRequestCase) {
    #expect(request(row.line) == .success(row.request))
  }

  @Test(
    "invalid requests are refused with a reason",
    arguments: [
      InvalidRequestCase(name: "an array", line: "[]", reason: "expected a JSON object"),
      InvalidRequestCase(name: "a string", line: #""status""#, reason: "expected a JSON object"),
      InvalidRequestCase(name: "no type", line: #"{"id":"x"}"#, reason: "missing \"type\""),
      InvalidRequestCase(name: "a numeric type", line: #"{"type":1}"#, reason: "missing \"type\""),
      InvalidRequestCase(name: "a null type", line: #"{"type":null}"#, reason: "missing \"type\""),
      InvalidRequestCase(
        name: "an unknown type", line: #"{"type":"code"}"#, reason: "unknown type \"code\""),
      InvalidRequestCase(
        name: "a type in another case", line: #"{"type":"Status"}"#,
        reason: "unknown type \"Status\""),
      InvalidRequestCase(
        name: "a verdict without id", line: #"{"type":"verdict","result":"granted"}"#,
        reason: "verdict without \"id\""),
      InvalidRequestCase(
        name: "a verdict with an empty id", line: #"{"type":"verdict","id":"","result":"granted"}"#,
        reason: "verdict without \"id\""),
      InvalidRequestCase(
        name: "a verdict with a numeric id", line: #"{"type":"verdict","id":7,"result":"granted"}"#,
        reason: "verdict without \"id\""),
      InvalidRequestCase(
        name: "a verdict without result", line: #"{"type":"verdict","id":"x"}"#,
        reason: "verdict \"result\" must be granted or denied"),
      InvalidRequestCase(
        name: "a verdict with result timeout",
        line: #"{"type":"verdict","id":"x","result":"timeout"}"#,
        reason: "verdict \"result\" must be granted or denied"),
      InvalidRequestCase(
        name: "a verdict with result true", line: #"{"type":"verdict","id":"x","result":true}"#,
        reason: "verdict \"result\" must be granted or denied"),
      InvalidRequestCase(
        name: "a verdict with result in capitals",
        line: #"{"type":"verdict","id":"x","result":"GRANTED"}"#,
        reason: "verdict \"result\" must be granted or denied"),
      InvalidRequestCase(
        name: "a string duress",
        line: #"{"type":"verdict","id":"x","result":"granted","duress":"yes"}"#,
        reason: "verdict \"duress\" must be true or false"),
      InvalidRequestCase(
        name: "a numeric duress",
        line: #"{"type":"verdict","id":"x","result":"granted","duress":1}"#,
        reason: "verdict \"duress\" must be true or false"),
      InvalidRequestCase(
        name: "a numeric message",
        line: #"{"type":"verdict","id":"x","result":"granted","message":5}"#,
        reason: "verdict \"message\" must be a string"),
      InvalidRequestCase(
        name: "an object message",
        line: #"{"type":"verdict","id":"x","result":"granted","message":{}}"#,
        reason: "verdict \"message\" must be a string"),
      InvalidRequestCase(
        name: "a boolean message",
        line: #"{"type":"verdict","id":"x","result":"granted","message":false}"#,
        reason: "verdict \"message\" must be a string"),
    ])
  func invalidRequests(_ row: InvalidRequestCase) {
    #expect(request(row.line) == .failure(RequestError(row.reason)))
  }

  @Test(
    "lines that are not JSON are refused as malformed",
    arguments: ["", "{", "status", "{\"type\":\"status\"} {}", "{\"type\":\"status\",}"])
  func malformedLines(line: String) throws {
    guard case .failure(let error) = request(line) else {
      Issue.record("accepted")
      return
    }
    #expect(error.reason.hasPrefix("malformed JSON: "))
  }

  @Test("a line that is not UTF-8 is refused as malformed")
  func invalidUTF8() {
    let line: [UInt8] = Array(#"{"type":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
    guard case .failure(let error) = ClientRequest.parse(line) else {
      Issue.record("accepted")
      return
    }
    #expect(error.reason.hasPrefix("malformed JSON: "))
  }

  @Test("the malformed-JSON reason names the byte offset")
  func malformedReasonHasOffset() {
    #expect(
      request("{\"type\":\"status\"} x")
        == .failure(RequestError("malformed JSON: unexpected text after the value at byte 18")))
  }

  @Test("the reason never repeats a long line, even one with a long unknown type")
  func reasonNeverEchoesLine() throws {
    let secret = String(repeating: "7", count: 200)
    let lines = [
      #"{"type":"\#(secret)"}"#,
      #"{"type":"verdict","id":"\#(secret)","result":"maybe"}"#,
      #"{"type":"verdict","id":"\#(secret)","result":"granted","message":1}"#,
      #"{"code":"\#(secret)"}"#,
      #"{"code":"\#(secret)""#,
      #"[""#, #"\#(secret) x"#,
    ]
    for line in lines {
      guard case .failure(let error) = request(line) else {
        Issue.record("accepted \(line.prefix(20))")
        continue
      }
      #expect(!error.reason.contains(secret))
      #expect(error.reason.count < 100, "\(error.reason)")
    }
  }

  @Test("an unknown type is quoted in the reason, cut to 32 characters")
  func unknownTypeCut() {
    let type = String(repeating: "a", count: 40)
    #expect(
      request(#"{"type":"\#(type)"}"#)
        == .failure(RequestError("unknown type \"\(String(repeating: "a", count: 32))\"")))
  }

  @Test("the refusal reason travels as a valid error line, whatever it holds")
  func refusalAsErrorLine() throws {
    guard case .failure(let error) = request(#"{"type":"\"\n\\"}"#) else {
      Issue.record("accepted")
      return
    }
    let value = try object(DaemonMessage.error(error.reason))
    #expect(value["reason"]?.stringValue == error.reason)
  }

  // MARK: - Daemon messages (docs/protocol.md, "Socket")

  @Test("hello carries type, protocol 1 and the version")
  func hello() throws {
    let value = try object(DaemonMessage.hello(version: "1.2.3"))
    #expect(names(value) == ["type", "protocol", "version"])
    #expect(value["type"] == .string("hello"))
    #expect(value["protocol"] == .number(1))
    #expect(value["version"] == .string("1.2.3"))
  }

  @Test("the hello line is exactly the one of docs/protocol.md, Socket: hello")
  func helloExact() {
    #expect(
      DaemonMessage.hello(version: "0.1.0")
        == "{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.1.0\"}\n"
    )
  }

  @Test("entry events carry keypad, event name and length", arguments: EntryEvent.allCases)
  func entry(event: EntryEvent) throws {
    let value = try object(DaemonMessage.entry(keypad: "front", event: event, length: 3))
    #expect(names(value) == ["type", "keypad", "event", "length"])
    #expect(value["type"] == .string("entry"))
    #expect(value["keypad"] == .string("front"))
    #expect(value["event"] == .string(event.rawValue))
    #expect(value["length"] == .number(3))
  }

  @Test("the entry event names are those of docs/protocol.md, Socket: entry")
  func entryEventNames() {
    #expect(
      EntryEvent.allCases.map(\.rawValue)
        == ["started", "changed", "deleted", "cleared", "timeout", "rejected", "card_read"])
  }

  @Test("verdict events carry id and result", arguments: ["granted", "denied", "timeout"])
  func verdict(result: String) throws {
    let value = try object(DaemonMessage.verdict(id: "c0ffee-12", result: result))
    #expect(names(value) == ["type", "id", "result"])
    #expect(value["type"] == .string("verdict"))
    #expect(value["id"] == .string("c0ffee-12"))
    #expect(value["result"] == .string(result))
  }

  @Test("lockout events carry keypad and whole seconds")
  func lockout() throws {
    let line = DaemonMessage.lockout(keypad: "side", seconds: 30)
    #expect(line == "{\"type\":\"lockout\",\"keypad\":\"side\",\"seconds\":30}\n")
    let value = try object(line)
    #expect(value["seconds"] == .number(30))
  }

  @Test(
    "keypad events say added or removed with the device and its role",
    arguments: [true, false], DeviceRole.allCases)
  func keypad(added: Bool, role: DeviceRole) throws {
    let value = try object(
      DaemonMessage.keypad(name: "front", added: added, device: "/dev/input/event3", role: role))
    #expect(names(value) == ["type", "keypad", "event", "device", "role"])
    #expect(value["type"] == .string("keypad"))
    #expect(value["keypad"] == .string("front"))
    #expect(value["event"] == .string(added ? "added" : "removed"))
    #expect(value["device"] == .string("/dev/input/event3"))
    #expect(value["role"] == .string(role == .keypad ? "keypad" : "card_reader"))
  }

  @Test("a device is a keypad unless it is said to be a card reader")
  func keypadRoleDefault() {
    #expect(
      DaemonMessage.keypad(name: "door", added: true, device: "/dev/input/event3")
        == "{\"type\":\"keypad\",\"keypad\":\"door\",\"event\":\"added\",\"device\":\"/dev/input/event3\",\"role\":\"keypad\"}\n"
    )
  }

  @Test("error lines carry the reason")
  func error() throws {
    #expect(
      DaemonMessage.error("forbidden") == "{\"type\":\"error\",\"reason\":\"forbidden\"}\n")
  }

  @Test("status lines start with the type and keep the fields in order")
  func status() throws {
    let value = try object(
      DaemonMessage.status([
        ("version", .string("0.1.0")), ("clients", .number(2)),
        ("keypads", .array([.object([("name", .string("front"))])])),
      ]))
    #expect(names(value) == ["type", "version", "clients", "keypads"])
    #expect(value["type"] == .string("status"))
    #expect(value["clients"] == .number(2))
  }

  @Test("names with quotes, backslashes and newlines stay on one valid line")
  func escapedNames() throws {
    let name = "door \"A\"\\\n\r\t\u{1}é"
    let lines = [
      DaemonMessage.entry(keypad: name, event: .started, length: 1),
      DaemonMessage.lockout(keypad: name, seconds: 1),
      DaemonMessage.keypad(name: name, added: true, device: name),
      DaemonMessage.verdict(id: name, result: "granted"),
      DaemonMessage.error(name),
      DaemonMessage.hello(version: name),
    ]
    for line in lines {
      let value = try object(line)
      guard case .object(let members) = value else { continue }
      #expect(members.contains { $0.1 == .string(name) }, "\(line)")
    }
  }

  @Test("a verdict line from a VerdictResult has the bytes of one from its name")
  func verdictLineFromResult() {
    for result in VerdictResult.allCases {
      #expect("\(result.word)" == result.rawValue)
      for reason in [nil, "no \"such\" code", ""] as [String?] {
        var fromWord: [UInt8] = []
        var fromName: [UInt8] = []
        DaemonMessage.verdict(id: "ab-1", result: result, reason: reason, into: &fromWord)
        DaemonMessage.verdict(id: "ab-1", result: result.rawValue, reason: reason, into: &fromName)
        #expect(fromWord == fromName, "\(result) \(String(describing: reason))")
        #expect(
          String(decoding: fromWord, as: UTF8.self)
            == DaemonMessage.verdict(id: "ab-1", result: result.rawValue, reason: reason))
      }
    }
  }

  // MARK: - Code messages

  @Test("a code line carries id, keypad, code and time as strings")
  func codeLine() throws {
    var buffer: [UInt8] = []
    DaemonMessage.appendCode(
      id: "ab12-1", keypad: "front", digits: digits([1, 2, 3, 4]),
      at: "2026-11-30T12:00:00.000Z", to: &buffer)
    let line = String(decoding: buffer, as: UTF8.self)
    #expect(
      line
        == "{\"type\":\"code\",\"id\":\"ab12-1\",\"keypad\":\"front\",\"code\":\"1234\",\"at\":\"2026-11-30T12:00:00.000Z\"}\n"
    )
    let value = try object(line)
    #expect(names(value) == ["type", "id", "keypad", "code", "at"])
  }

  @Test(
    "a code line timed by the wall clock has the same bytes as one given its time as text",
    arguments: [
      (0, "1970-01-01T00:00:00.000Z"), (1_796_515_200_123_456_789, "2026-12-06T00:00:00.123Z"),
      (-1, "1969-12-31T23:59:59.999Z"), (951_782_400_000_000_000, "2000-02-29T00:00:00.000Z"),
      (Int64.max, "2262-04-11T23:47:16.854Z"), (Int64.min, "1677-09-21T00:12:43.145Z"),
    ] as [(Int64, String)])
  func codeLineWallClock(ns: Int64, text: String) {
    #expect(UTCTimestamp.string(wallNanoseconds: ns) == text)
    var given: [UInt8] = []
    var timed: [UInt8] = []
    DaemonMessage.appendCode(
      id: "ab12-1", keypad: "front", digits: digits([1, 2]), card: digits([9]), at: text,
      to: &given)
    DaemonMessage.appendCode(
      id: "ab12-1", keypad: "front", digits: digits([1, 2]), card: digits([9]),
      wallNanoseconds: ns, to: &timed)
    #expect(String(decoding: timed, as: UTF8.self) == String(decoding: given, as: UTF8.self))
  }

  @Test(
    "code digits keep their leading zeros",
    arguments: [[0], [0, 0, 0, 0], [0, 0, 7], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]] as [[UInt8]])
  func leadingZeros(values: [UInt8]) throws {
    var buffer: [UInt8] = []
    DaemonMessage.appendCode(
      id: "i", keypad: "k", digits: digits(values), at: "t", to: &buffer)
    let value = try object(String(decoding: buffer, as: UTF8.self))
    #expect(value["code"] == .string(String(values.map { Character(String($0)) })))
  }

  @Test("a code of 32 digits is written whole")
  func longestCode() throws {
    let values = (0..<32).map { UInt8($0 % 10) }
    var buffer: [UInt8] = []
    DaemonMessage.appendCode(id: "i", keypad: "k", digits: digits(values), at: "t", to: &buffer)
    let value = try object(String(decoding: buffer, as: UTF8.self))
    #expect(value["code"]?.stringValue?.count == 32)
  }

  @Test("a code line with a card carries it after the code; a card alone has no code")
  func cardLines() throws {
    var buffer: [UInt8] = []
    DaemonMessage.appendCode(
      id: "c-1", keypad: "door", digits: digits([1, 2, 3, 4]), card: digits([0, 0, 1, 2]),
      at: "t", to: &buffer)
    let both = String(decoding: buffer, as: UTF8.self)
    #expect(
      both
        == #"{"type":"code","id":"c-1","keypad":"door","code":"1234","card":"0012","at":"t"}"#
        + "\n")
    #expect(names(try object(both)) == ["type", "id", "keypad", "code", "card", "at"])
    buffer = []
    DaemonMessage.appendCode(
      id: "c-2", keypad: "door", digits: SecretDigits(), card: digits([9, 0]), at: "t", to: &buffer)
    let alone = String(decoding: buffer, as: UTF8.self)
    #expect(alone == #"{"type":"code","id":"c-2","keypad":"door","card":"90","at":"t"}"# + "\n")
    let longest = (0..<32).map { UInt8($0 % 10) }
    buffer = []
    DaemonMessage.appendCode(
      id: "i", keypad: "k", digits: digits(longest), card: digits(longest), at: "t", to: &buffer)
    let value = try object(String(decoding: buffer, as: UTF8.self))
    #expect(value["card"]?.stringValue?.count == 32)
  }

  @Test("the alarm line of SPEC 9.2")
  func alarmLine() {
    #expect(
      DaemonMessage.alarm(reason: "duress", keypad: "door", id: "ab-7")
        == #"{"type":"alarm","reason":"duress","keypad":"door","id":"ab-7"}"# + "\n")
  }

  @Test("the code line escapes id and keypad")
  func codeEscapes() throws {
    var buffer: [UInt8] = []
    let keypad = "front \"door\"\n\\"
    let id = "id\"},\"code\":\"9999"
    DaemonMessage.appendCode(
      id: id, keypad: keypad, digits: digits([5, 6]), at: "now\"", to: &buffer)
    let value = try object(String(decoding: buffer, as: UTF8.self))
    #expect(value["id"] == .string(id))
    #expect(value["keypad"] == .string(keypad))
    #expect(value["code"] == .string("56"))
    #expect(value["at"] == .string("now\""))
    #expect(names(value) == ["type", "id", "keypad", "code", "at"])
  }

  @Test("the code line is appended after what the buffer already holds")
  func codeAppends() {
    var buffer: [UInt8] = Array("earlier\n".utf8)
    DaemonMessage.appendCode(id: "i", keypad: "k", digits: digits([9]), at: "t", to: &buffer)
    let text = String(decoding: buffer, as: UTF8.self)
    #expect(text.hasPrefix("earlier\n{\"type\":\"code\""))
    #expect(text.hasSuffix("}\n"))
  }

  @Test("writing a code leaves the digits in their buffer for the caller to wipe")
  func codeKeepsDigits() {
    let code = digits([4, 2])
    var buffer: [UInt8] = []
    DaemonMessage.appendCode(id: "i", keypad: "k", digits: code, at: "t", to: &buffer)
    #expect(code.count == 2)
    #expect(code[0] == 4 && code[1] == 2)
  }

  @Test("a verdict's reason must be a word; the verdict event carries it")
  func verdictReason() throws {
    for bad in [
      #"{"type":"verdict","id":"r","result":"denied","reason":"Expired!"}"#,
      #"{"type":"verdict","id":"r","result":"denied","reason":3}"#,
      #"{"type":"verdict","id":"r","result":"denied","reason":""}"#,
      #"{"type":"verdict","id":"r","result":"denied","reason":"\#(String(repeating: "a", count: 33))"}"#,
    ] {
      guard case .failure = request(bad) else {
        Issue.record("accepted \(bad)")
        continue
      }
    }
    #expect(
      DaemonMessage.verdict(id: "r", result: "denied", reason: "used_up")
        == #"{"type":"verdict","id":"r","result":"denied","reason":"used_up"}"# + "\n")
  }
}
