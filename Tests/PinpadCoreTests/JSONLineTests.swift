import Testing

@testable import PinpadCore

/// The byte-level lines of `DaemonMessage` against the generic encoder (`JSONValue`):
/// the same text for names with quotes, backslashes, every C0 control, DEL, C1,
/// multi-byte UTF-8 and long runs, and each line parses back to the members it was given.
@Suite struct JSONLineTests {
  /// Names that exercise every escaping rule, plus ordinary ones.
  static let names: [String] = {
    var names = [
      "", "default", "front door", "a\"b", "back\\slash", "\\\"", "tab\there", "nl\nx",
      "cr\rx", "\u{7F}del", "\u{80}\u{9F}c1", "ÄÖÜ ß", "日本語", "🔐 door", "e\u{301}",
      "\u{202E}rtl", "\u{200B}zw", "\u{FEFF}bom", String(repeating: "é\"", count: 300),
      "/dev/input/by-id/usb-Keypad_123-event-kbd",
    ]
    // Every C0 control alone and between letters.
    for b in 0..<0x20 { names.append("x\(Character(Unicode.Scalar(UInt8(b))))y") }
    names.append(String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self))
    return names
  }()

  static func generic(_ members: [(String, JSONValue)]) -> String {
    JSONValue.object(members).serialized + "\n"
  }

  @Test(arguments: names)
  func entryVerdictLockoutKeypadAndErrorMatchTheGenericEncoder(_ name: String) throws {
    for event in EntryEvent.allCases {
      for length in [0, 1, 9, 10, 32, 99, 1000] {
        #expect(
          DaemonMessage.entry(keypad: name, event: event, length: length)
            == Self.generic([
              ("type", .string("entry")), ("keypad", .string(name)),
              ("event", .string(event.rawValue)), ("length", .number(Double(length))),
            ]))
      }
    }
    for result in ["granted", "denied", "timeout", name] {
      #expect(
        DaemonMessage.verdict(id: name, result: result)
          == Self.generic([
            ("type", .string("verdict")), ("id", .string(name)), ("result", .string(result)),
          ]))
    }
    for seconds in [0, 30, 60, 900, 86_400, Int(Int32.max)] {
      #expect(
        DaemonMessage.lockout(keypad: name, seconds: seconds)
          == Self.generic([
            ("type", .string("lockout")), ("keypad", .string(name)),
            ("seconds", .number(Double(seconds))),
          ]))
    }
    for added in [true, false] {
      for role in DeviceRole.allCases {
        #expect(
          DaemonMessage.keypad(name: name, added: added, device: "/dev/input/" + name, role: role)
            == Self.generic([
              ("type", .string("keypad")), ("keypad", .string(name)),
              ("event", .string(added ? "added" : "removed")),
              ("device", .string("/dev/input/" + name)), ("role", .string(role.rawValue)),
            ]))
      }
    }
    #expect(
      DaemonMessage.error(name)
        == Self.generic([("type", .string("error")), ("reason", .string(name))]))
    #expect(
      DaemonMessage.hello(version: name)
        == Self.generic([
          ("type", .string("hello")), ("protocol", .number(1)), ("version", .string(name)),
        ]))
    // And the text is JSON that gives the name back.
    let line = DaemonMessage.entry(keypad: name, event: .started, length: 1)
    #expect(try JSONValue.parse(String(line.dropLast()))["keypad"] == .string(name))
  }

  @Test(arguments: names)
  func theCodeLineMatchesTheGenericEncoderWithItsDigits(_ name: String) throws {
    let digits = SecretDigits()
    for d: UInt8 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0] { digits.append(d) }
    var buffer: [UInt8] = []
    let at = "2026-11-30T12:00:00.000Z"
    DaemonMessage.appendCode(id: name + "-1", keypad: name, digits: digits, at: at, to: &buffer)
    #expect(
      String(decoding: buffer, as: UTF8.self)
        == Self.generic([
          ("type", .string("code")), ("id", .string(name + "-1")), ("keypad", .string(name)),
          ("code", .string("01234567890")), ("at", .string(at)),
        ]))
  }

  @Test func integersAreWrittenAsTheGenericEncoderWritesWholeNumbers() {
    for value in [0, 1, -1, 7, 10, 99, 100, 12_345, -98_765, 999_999_999_999_999] {
      var bytes: [UInt8] = []
      JSONLine.appendInt(value, to: &bytes)
      #expect(String(decoding: bytes, as: UTF8.self) == JSONValue.number(Double(value)).serialized)
    }
  }
}

/// The eight-bytes-at-a-time scan of `JSONLine.appendString` against a byte-at-a-time one.
@Suite struct JSONLineWordScanTests {
  @Test("needsEscape is true exactly when a byte is below 0x20, a quote or a backslash")
  func wordTestMatchesBytes() {
    var generator = SystemRandomNumberGenerator()
    var words: [UInt64] = []
    // Every byte value in every position of an otherwise plain word, and random words.
    for position in 0..<8 {
      for value in 0..<256 {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
        bytes[position] = UInt8(value)
        words.append(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
      }
    }
    for _ in 0..<50_000 { words.append(generator.next()) }
    let wrong = words.filter { word in
      let bytes = withUnsafeBytes(of: word) { Array($0) }
      let expected = bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
      return JSONLine.needsEscape(word) != expected
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(4).map { String($0, radix: 16) })")
  }

  @Test("strings of every length with a character to escape at every place")
  func escapesAtEveryPlace() {
    for length in 0..<40 {
      for place in 0..<max(length, 1) {
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é"] {
          var text = Array(repeating: "x", count: length)
          if length > 0 { text[place] = special }
          let name = text.joined()
          #expect(
            DaemonMessage.error(name)
              == JSONValue.object([("type", .string("error")), ("reason", .string(name))])
              .serialized + "\n")
        }
      }
    }
  }
}
