import PinpadCore
import Testing

/// Parses `text`, or returns nil when it is not JSON.
private func parsed(_ text: String) -> JSONValue? {
  try? JSONValue.parse(text)
}

/// Parses raw bytes, or returns the error.
private func failure(_ bytes: [UInt8]) -> JSONError? {
  do {
    _ = try JSONValue.parse(bytes)
    return nil
  } catch {
    return error
  }
}

private func failure(_ text: String) -> JSONError? { failure(Array(text.utf8)) }

/// A row of a parse table: `text` reads as `value`.
struct JSONParseCase: Sendable, CustomTestStringConvertible {
  var text: String
  var value: JSONValue
  var testDescription: String { text }
}

/// A row of a rejection table: `text` is not JSON; reading stopped at `offset`.
struct JSONRejectCase: Sendable, CustomTestStringConvertible {
  var name: String
  var text: String
  var offset: Int
  var testDescription: String { name }
}

@Suite("JSON")
struct JSONTests {
  // MARK: - Parsing

  @Test(
    "literals, numbers, strings and containers parse to their values",
    arguments: [
      JSONParseCase(text: "null", value: .null),
      JSONParseCase(text: "true", value: .bool(true)),
      JSONParseCase(text: "false", value: .bool(false)),
      JSONParseCase(text: "0", value: .number(0)),
      JSONParseCase(text: "-0", value: .number(0)),
      JSONParseCase(text: "42", value: .number(42)),
      JSONParseCase(text: "-17", value: .number(-17)),
      JSONParseCase(text: "3.25", value: .number(3.25)),
      JSONParseCase(text: "1e3", value: .number(1000)),
      JSONParseCase(text: "1E+2", value: .number(100)),
      JSONParseCase(text: "25e-1", value: .number(2.5)),
      JSONParseCase(text: "-0.5e1", value: .number(-5)),
      JSONParseCase(text: "\"\"", value: .string("")),
      JSONParseCase(text: "\"abc\"", value: .string("abc")),
      JSONParseCase(text: "[]", value: .array([])),
      JSONParseCase(text: "{}", value: .object([])),
      JSONParseCase(text: "[1,\"a\",null]", value: .array([.number(1), .string("a"), .null])),
      JSONParseCase(
        text: "{\"a\":{\"b\":[true]}}",
        value: .object([("a", .object([("b", .array([.bool(true)]))]))])),
      JSONParseCase(
        text: " \t\r\n{ \"a\" : 1 , \"b\" : [ ] }\r\n ",
        value: .object([("a", .number(1)), ("b", .array([]))])),
    ])
  func parsesValues(_ row: JSONParseCase) throws {
    #expect(try JSONValue.parse(row.text) == row.value)
  }

  @Test("object members keep their order")
  func memberOrderKept() throws {
    let value = try JSONValue.parse("{\"z\":1,\"a\":2,\"m\":3}")
    guard case .object(let members) = value else {
      Issue.record("not an object")
      return
    }
    #expect(members.map(\.0) == ["z", "a", "m"])
  }

  @Test("objects with the same members in another order are not equal")
  func memberOrderMatters() {
    #expect(parsed("{\"a\":1,\"b\":2}") != parsed("{\"b\":2,\"a\":1}"))
  }

  @Test("a repeated member name reads as its last value")
  func lastDuplicateWins() throws {
    let value = try JSONValue.parse("{\"type\":\"verdict\",\"type\":\"status\"}")
    #expect(value["type"] == .string("status"))
  }

  @Test("member lookup on a non-object and on a missing name gives nil")
  func subscriptMisses() throws {
    #expect(JSONValue.array([.number(1)])["a"] == nil)
    #expect(try JSONValue.parse("{\"a\":1}")["b"] == nil)
  }

  @Test("the typed accessors answer only for their own kind")
  func typedAccessors() {
    #expect(JSONValue.string("x").stringValue == "x")
    #expect(JSONValue.number(1).stringValue == nil)
    #expect(JSONValue.number(2.5).numberValue == 2.5)
    #expect(JSONValue.string("2").numberValue == nil)
    #expect(JSONValue.bool(false).boolValue == false)
    #expect(JSONValue.null.boolValue == nil)
  }

  // MARK: - Escapes

  @Test(
    "every simple escape decodes to its character",
    arguments: [
      ("\\\"", "\""), ("\\\\", "\\"), ("\\/", "/"), ("\\b", "\u{08}"), ("\\f", "\u{0C}"),
      ("\\n", "\n"), ("\\r", "\r"), ("\\t", "\t"),
    ])
  func simpleEscapes(escape: String, character: String) throws {
    #expect(try JSONValue.parse("\"a\(escape)b\"") == .string("a\(character)b"))
  }

  @Test(
    "\\u escapes decode in either case of hex",
    arguments: [
      ("\\u0041", "A"), ("\\u00e9", "é"), ("\\u00E9", "é"), ("\\u20ac", "€"),
      ("\\u0000", "\u{0}"),
    ])
  func unicodeEscapes(escape: String, character: String) throws {
    #expect(try JSONValue.parse("\"\(escape)\"") == .string(character))
  }

  @Test("a \\u surrogate pair decodes to one scalar beyond the BMP")
  func surrogatePair() throws {
    let value = try JSONValue.parse("\"x\\ud83d\\ude00y\"")
    #expect(value == .string("x\u{1F600}y"))
    #expect(value.stringValue?.unicodeScalars.count == 3)
  }

  @Test(
    "broken \\u escapes are rejected",
    arguments: [
      "\"\\ud83d\"",  // high surrogate alone
      "\"\\ud83dx\"",  // high surrogate then text
      "\"\\ud83d\\u0041\"",  // high surrogate then a non-surrogate
      "\"\\ud83d\\ud83d\"",  // two high surrogates
      "\"\\ude00\"",  // low surrogate alone
      "\"\\u12\"",  // too few hex digits
      "\"\\u12g4\"",  // not hex
      "\"\\u+041\"",  // a sign is not a hex digit
      "\"\\u-000\"",
      "\"\\u",
    ])
  func brokenUnicodeEscapes(text: String) {
    #expect(failure(text) != nil)
  }

  @Test("an unknown escape letter is rejected", arguments: ["\\a", "\\x41", "\\U0041", "\\'"])
  func unknownEscape(escape: String) {
    #expect(failure("\"\(escape)\"") != nil)
  }

  // MARK: - Control characters and UTF-8

  @Test("every raw control character inside a string is rejected")
  func controlCharactersRejected() {
    for byte in UInt8(0)..<0x20 {
      let bytes: [UInt8] = [0x22, 0x61, byte, 0x22]
      #expect(failure(bytes)?.offset == 2, "byte \(byte)")
    }
  }

  @Test("DEL and non-ASCII text are allowed raw in strings")
  func delAndUnicodeAllowed() throws {
    #expect(try JSONValue.parse("\"a\u{7F}é€😀\"") == .string("a\u{7F}é€😀"))
  }

  @Test(
    "invalid UTF-8 inside a string is rejected",
    arguments: [
      [0xFF],  // never valid
      [0xC3],  // truncated two-byte sequence
      [0xC0, 0xAF],  // overlong '/'
      [0xED, 0xA0, 0x80],  // an encoded surrogate
      [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
      [0x80],  // a lone continuation byte
    ] as [[UInt8]])
  func invalidUTF8Rejected(bad: [UInt8]) {
    let before: [UInt8] = Array("{\"k\":\"a".utf8)
    #expect(failure(before + bad + [0x22, 0x7D]) != nil)
    // Also right before an escape, where the raw run is checked too.
    #expect(failure(before + bad + Array("\\n\"}".utf8)) != nil)
  }

  @Test("invalid UTF-8 in a member name is rejected")
  func invalidUTF8InName() {
    #expect(failure([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) != nil)
  }

  @Test("a byte that starts no value is rejected at its offset")
  func strayByte() {
    #expect(failure([0x5B, 0xFF, 0x5D])?.offset == 1)
  }

  // MARK: - Numbers

  @Test(
    "number spellings outside RFC 8259 are rejected",
    arguments: [
      "01", "-01", "+1", ".5", "1.", "-", "1e", "1e+", "--1", "1.2.3", "1e2e3", "0x10", "NaN",
      "Infinity", "-Infinity", "1-2",
    ])
  func badNumbers(text: String) {
    #expect(failure(text) != nil)
  }

  @Test("a number too large for a Double is rejected rather than read as infinity")
  func hugeNumberRejected() {
    #expect(failure("1e999") != nil)
    #expect(failure("-1e999") != nil)
  }

  @Test("a number with a very small exponent reads as zero")
  func tinyNumber() throws {
    #expect(try JSONValue.parse("1e-999") == .number(0))
  }

  // MARK: - Structure

  @Test("32 levels of nesting are accepted")
  func nestingAtLimit() throws {
    let text = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
    #expect(throws: Never.self) { try JSONValue.parse(text) }
  }

  @Test("33 levels of nesting are rejected, where the 33rd begins")
  func nestingBeyondLimit() {
    let arrays = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
    #expect(failure(arrays)?.offset == 32)
    let objects = String(repeating: "{\"a\":", count: 33) + "1" + String(repeating: "}", count: 33)
    #expect(failure(objects) != nil)
  }

  @Test("deep nesting far beyond the limit fails cleanly")
  func veryDeepNesting() {
    #expect(failure(String(repeating: "[", count: 100_000)) != nil)
  }

  @Test(
    "malformed structure is rejected where reading stopped",
    arguments: [
      JSONRejectCase(name: "empty input", text: "", offset: 0),
      JSONRejectCase(name: "only whitespace", text: "  \n", offset: 3),
      JSONRejectCase(name: "trailing garbage", text: "{} x", offset: 3),
      JSONRejectCase(name: "two values", text: "1 2", offset: 2),
      JSONRejectCase(name: "a second object", text: "{}{}", offset: 2),
      JSONRejectCase(name: "trailing comma in an object", text: "{\"a\":1,}", offset: 7),
      JSONRejectCase(name: "trailing comma in an array", text: "[1,]", offset: 3),
      JSONRejectCase(name: "missing colon", text: "{\"a\" 1}", offset: 5),
      JSONRejectCase(name: "unquoted name", text: "{a:1}", offset: 1),
      JSONRejectCase(name: "single-quoted string", text: "'a'", offset: 0),
      JSONRejectCase(name: "missing comma", text: "[1 2]", offset: 3),
      JSONRejectCase(name: "unclosed array", text: "[1", offset: 2),
      JSONRejectCase(name: "unclosed object", text: "{\"a\":1", offset: 6),
      JSONRejectCase(name: "unterminated string", text: "\"abc", offset: 4),
      JSONRejectCase(name: "misspelt literal", text: "[tru]", offset: 4),
      JSONRejectCase(name: "truncated literal", text: "nul", offset: 3),
      JSONRejectCase(name: "literal in capitals", text: "True", offset: 0),
      JSONRejectCase(name: "bad number", text: "[1, -]", offset: 4),
    ])
  func malformedStructure(_ row: JSONRejectCase) {
    let error = failure(row.text)
    #expect(error?.offset == row.offset)
  }

  @Test("an error describes itself with its byte offset")
  func errorDescription() throws {
    let error = try #require(failure("{} x"))
    #expect(error.description.hasSuffix("at byte 3"))
    #expect(!error.message.isEmpty)
  }

  // MARK: - Serializing

  @Test(
    "values serialize compactly",
    arguments: [
      (JSONValue.null, "null"), (.bool(true), "true"), (.bool(false), "false"),
      (.number(0), "0"), (.number(-3), "-3"), (.number(4096), "4096"),
      (.number(2.5), "2.5"), (.string("a"), "\"a\""), (.array([]), "[]"), (.object([]), "{}"),
      (.array([.number(1), .null]), "[1,null]"),
      (.object([("b", .number(1)), ("a", .array([.bool(true)]))]), "{\"b\":1,\"a\":[true]}"),
    ])
  func serializes(value: JSONValue, text: String) {
    #expect(value.serialized == text)
  }

  @Test(
    "strings escape quotes, backslashes and control characters",
    arguments: [
      ("\"", "\"\\\"\""), ("\\", "\"\\\\\""), ("\n", "\"\\n\""), ("\r", "\"\\r\""),
      ("\t", "\"\\t\""), ("\u{0}", "\"\\u0000\""), ("\u{1B}", "\"\\u001b\""),
      ("\u{1F}", "\"\\u001f\""), ("/", "\"/\""), ("é😀", "\"é😀\""), ("\u{7F}", "\"\u{7F}\""),
    ])
  func stringEscaping(raw: String, text: String) {
    #expect(JSONValue.string(raw).serialized == text)
  }

  @Test("a serialized string never contains a raw control character")
  func noRawControlCharacters() {
    let every = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar($0)! }))
    let text = JSONValue.string(every).serialized
    #expect(text.utf8.allSatisfy { $0 >= 0x20 })
  }

  @Test("whole numbers serialize without a fraction; large ones stay valid JSON")
  func wholeNumbers() throws {
    #expect(JSONValue.number(1_700_000_000_000).serialized == "1700000000000")
    for n in [1e15, 1e20, -1e300, 1e-7, 0.1] {
      #expect(try JSONValue.parse(JSONValue.number(n).serialized) == .number(n), "\(n)")
    }
  }

  @Test("serialize then parse gives back the same value")
  func roundTrip() throws {
    let every = String(String.UnicodeScalarView((0..<0x80).map { Unicode.Scalar($0)! }))
    let value = JSONValue.object([
      ("type", .string("verdict")),
      ("text", .string(every + "é€😀\u{2028}")),
      ("n", .number(-12.75)),
      ("list", .array([.null, .bool(true), .bool(false), .object([]), .array([])])),
      ("nested", .object([("a", .object([("b", .string("\"q\""))]))])),
      ("", .string("empty name")),
    ])
    #expect(try JSONValue.parse(value.serialized) == value)
  }

  @Test("parse then serialize normalises whitespace and escapes")
  func parseThenSerialize() throws {
    let text = "{ \"a\" : [ 1 , 2.5 , \"\\u0041\\/\\ud83d\\ude00\" ] }"
    #expect(try JSONValue.parse(text).serialized == "{\"a\":[1,2.5,\"A/😀\"]}")
  }

  @Test("parsing reads any collection of bytes, such as a slice")
  func parsesSlices() throws {
    let bytes = Array("xx{\"a\":1}yy".utf8)
    #expect(try JSONValue.parse(bytes[2..<9]) == .object([("a", .number(1))]))
  }
}
