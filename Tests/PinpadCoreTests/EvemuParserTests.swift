import PinpadTestSupport
import Testing

@testable import PinpadCore

/// The byte-level, streaming evemu parser: numbers at their limits, line endings, blank
/// space, comments, truncated lines, bytes that are not text, and the same result
/// however the file is cut into chunks.
@Suite struct EvemuParserTests {
  /// Parses `bytes` fed in chunks of `size` bytes.
  static func chunked(_ bytes: [UInt8], size: Int, path: String = "r") throws(RecordingError)
    -> [RecordedEvent]
  {
    var parser = EvemuParser(path: path)
    var events: [RecordedEvent] = []
    var start = 0
    while start < bytes.count {
      let end = min(bytes.count, start + size)
      let failure: RecordingError? = bytes[start..<end].withUnsafeBytes { chunk in
        do throws(RecordingError) {
          try parser.feed(chunk) { events.append($0) }
          return nil
        } catch { return error }
      }
      if let failure { throw failure }
      start = end
    }
    try parser.finish { events.append($0) }
    return events
  }

  static func one(_ line: String) throws(RecordingError) -> RecordedEvent? {
    try EvemuRecording.parse(line, path: "r").first
  }

  static func error(_ text: String) -> RecordingError? {
    do throws(RecordingError) {
      _ = try EvemuRecording.parse(text, path: "r")
      return nil
    } catch { return error }
  }

  @Test("the word-at-a-time line-feed search finds what a byte loop finds")
  func lineFeedSearchMatchesAByteLoop() {
    // Every length to past two words, a line feed at every place (or none), around
    // bytes that differ from 0x0A by one bit or a borrow (0x0B, 0x09, 0x8A, 0x00).
    for length in 1..<20 {
      for at in -1..<length {
        for filler: UInt8 in [0x0B, 0x09, 0x8A, 0x00, 0x41] {
          var bytes = [UInt8](repeating: filler, count: length)
          if at >= 0 { bytes[at] = 0x0A }
          if at >= 0, at + 1 < length { bytes[at + 1] = 0x0A }  // a second one after it
          for from in 0...length {
            let expected = bytes[from...].firstIndex(of: 0x0A) ?? length
            let found = bytes.withUnsafeBufferPointer { b in
              EvemuParser.lineFeed(b.baseAddress!, from: from, to: length)
            }
            #expect(found == expected, "\(bytes) from \(from)")
          }
        }
      }
    }
  }

  @Test func valuesAtTheLimitsOfInt32ParseAndOneBeyondAreErrors() throws {
    #expect(try Self.one("E: 0 1 1 2147483647")?.value == .max)
    #expect(try Self.one("E: 0 1 1 -2147483648")?.value == .min)
    #expect(try Self.one("E: 0 1 1 +0005")?.value == 5)
    #expect(try Self.one("E: 0 1 1 -0")?.value == 0)
    #expect(try Self.one("E: 0 1 1 00000000000000000000000001")?.value == 1)
    for bad in [
      "2147483648", "-2147483649", "99999999999999999999999999999", "-", "+", "1-", "0x1",
    ] {
      #expect(
        Self.error("E: 0 1 1 \(bad)")
          == RecordingError(
            path: "r", line: 1, message: "event value \(bad) is not a 32-bit decimal number"))
    }
  }

  @Test func typesAndCodesAreOneToFourHexDigitsInEitherCase() throws {
    #expect(
      try Self.one("E: 0 FFFF aBcD 1")
        == RecordedEvent(time: .zero, type: 0xFFFF, code: 0xABCD, value: 1))
    #expect(try Self.one("E: 0 0 0 1")?.type == 0)
    #expect(
      Self.error("E: 0 10000 1 1")?.message == "event type 10000 is not 1 to 4 hex digits")
    #expect(Self.error("E: 0 1 g 1")?.message == "event code g is not 1 to 4 hex digits")
    #expect(Self.error("E: 0 1 -1 1")?.message == "event code -1 is not 1 to 4 hex digits")
  }

  @Test func timestampsUpToTheLargestParseAndLaterOnesAreNamed() throws {
    let largest = "\(EvemuRecording.maxSeconds).999999999"
    let events = try EvemuRecording.parse("E: 0.0 0 0 0\nE: \(largest) 0 0 0\n", path: "r")
    #expect(events.last?.time == .seconds(EvemuRecording.maxSeconds) + .nanoseconds(999_999_999))
    for late in ["\(EvemuRecording.maxSeconds + 1).0", "999999999999", "999999999999.999999999"] {
      #expect(
        Self.error("E: \(late) 0 0 0")?.message
          == "time \(late) is past the largest one, \(EvemuRecording.maxSeconds) s")
    }
    for bad in ["1000000000000", "1.", ".5", "1.2.3", "1,5", "1.5e3", "1.0000000000", "+1.0"] {
      #expect(
        Self.error("E: \(bad) 0 0 0")?.message
          == "\(bad) is not a timestamp like 1700000000.123456")
    }
    #expect(try Self.one("E: 1.123456789 0 0 0")?.time == .zero)
    let fraction = try EvemuRecording.parse(
      "E: 1 0 0 0\nE: 1.000000001 0 0 0\nE: 1.5 0 0 0", path: "r")
    #expect(fraction.map(\.time) == [.zero, .nanoseconds(1), .milliseconds(500)])
  }

  @Test func tabsCarriageReturnsByteOrderMarksAndCommentsAreBlankSpace() throws {
    let text =
      "\u{FEFF}# EVEMU 1.3\r\n\tN: pad\r\n  # indented comment\r\nE:\t0.5\t1\t4f\t1\t# EV_KEY\r\n"
      + "E:0.75 0 0 0#SYN\n\u{FEFF}E: 1.0 1 4f 0 \r\n\u{0B}\u{0C}\r\n"
    let events = try EvemuRecording.parse(text, path: "r")
    #expect(
      events == [
        RecordedEvent(time: .zero, type: 1, code: 0x4f, value: 1),
        RecordedEvent(time: .milliseconds(250), type: 0, code: 0, value: 0),
        RecordedEvent(time: .milliseconds(500), type: 1, code: 0x4f, value: 0),
      ])
    #expect(
      Self.error("E: 0.5 1 4f # 1")?.message
        == "an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found 3")
  }

  @Test func truncatedLinesAreErrorsWithTheirLineAndAFinalLineWithoutNewlineCounts() throws {
    #expect(try EvemuRecording.parse("N: x\nE: 0.5 1 4f 1", path: "r").count == 1)
    let cases: [(String, String)] = [
      ("E: 0.5 1 4", "an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found 3"),
      ("E:", "an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found 0"),
      ("E", "not an evemu-record line (expected E: SECONDS TYPE CODE VALUE)"),
      ("N", "not an evemu-record line (expected E: SECONDS TYPE CODE VALUE)"),
    ]
    for (last, message) in cases {
      #expect(
        Self.error("N: x\nE: 0.5 1 4f 1\n\(last)")
          == RecordingError(path: "r", line: 3, message: message))
    }
  }

  @Test func bytesThatAreNotTextAreErrorsNeverTraps() throws {
    var every = [UInt8](0...255)
    every += [0x0A] + Array("E: 1 1 1 1".utf8)
    #expect(throws: RecordingError.self) { try EvemuRecording.parse(every, path: "bin") }
    let invalid: [UInt8] = Array("E: 0.5 1 4f ".utf8) + [0xFF, 0xFE] + [0x0A]
    #expect(
      throws: RecordingError(
        path: "bin", line: 1, message: "event value \u{FFFD}\u{FFFD} is not a 32-bit decimal number"
      )
    ) {
      try EvemuRecording.parse(invalid, path: "bin")
    }
    // A byte-order mark cut short is not blank space.
    #expect(throws: RecordingError.self) { try EvemuRecording.parse([0xEF, 0xBB], path: "bin") }
    #expect(try EvemuRecording.parse([UInt8](), path: "bin").isEmpty)
  }

  @Test func anOverlongLineIsAnErrorWhereverTheChunksAreCut() throws {
    let long = "# " + String(repeating: "x", count: EvemuParser.maxLineLength)
    let bytes = Array("E: 0 0 0 0\n\(long)\nE: 1 0 0 0\n".utf8)
    let expected = RecordingError(
      path: "r", line: 2, message: "line is longer than \(EvemuParser.maxLineLength) bytes")
    #expect(throws: expected) { try EvemuRecording.parse(bytes, path: "r") }
    for size in [1, 7, 4096, 65536, 65537] {
      #expect(throws: expected) { try Self.chunked(bytes, size: size) }
    }
    // One byte shorter is a comment like any other.
    let fits = "# " + String(repeating: "x", count: EvemuParser.maxLineLength - 2)
    #expect(try EvemuRecording.parse("\(fits)\nE: 1 0 0 0", path: "r").count == 1)
  }

  @Test func everyChunkSizeGivesTheSameEventsAndErrors() throws {
    let text = EvemuWriter.keyPresses([
      (.keypad(1), gapSeconds: 0.5), (.keypad(2), gapSeconds: 0.25), (.kpEnter, gapSeconds: 0.01),
    ])
    let bytes = Array(text.utf8)
    let whole = try EvemuRecording.parse(bytes, path: "r")
    #expect(whole.count == 13)
    let bad = bytes + Array("E: 9.0 1 4f 1\nE: 8.0 1 4f 0\n".utf8)
    let badLine = bad.filter { $0 == 0x0A }.count
    let expected = RecordingError(
      path: "r", line: badLine, message: "time 8.0 is earlier than the event before it")
    for size in 1...80 {
      #expect(try Self.chunked(bytes, size: size) == whole, "chunks of \(size)")
      #expect(throws: expected) { try Self.chunked(bad, size: size) }
    }
  }

  /// Random mutations of a recording (bytes changed, dropped, repeated): never a trap,
  /// and whole or in chunks of any size, the same events or the same error.
  @Test func mutatedRecordingsParseTheSameWholeAndInChunks() {
    let original = Array(
      EvemuWriter.keyPresses([(.keypad(1), gapSeconds: 0.5), (.kpEnter, gapSeconds: 0.25)]).utf8)
    let alphabet =
      Array("E:NB# \t\r\n.-+0123456789abcdefxyz".utf8) + [0x00, 0xEF, 0xBB, 0xBF, 0xFF]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33) % bound
    }
    func outcome(_ body: () throws(RecordingError) -> [RecordedEvent]) -> String {
      do throws(RecordingError) { return "\(try body())" } catch { return error.description }
    }
    for round in 0..<300 {
      var bytes = original
      for _ in 0..<(1 + random(6)) {
        let at = random(bytes.count)
        switch random(3) {
        case 0: bytes[at] = alphabet[random(alphabet.count)]
        case 1: bytes.remove(at: at)
        default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + random(40))], at: at)
        }
      }
      let whole = outcome { () throws(RecordingError) in try EvemuRecording.parse(bytes, path: "m")
      }
      let size = 1 + random(97)
      let chunked = outcome { () throws(RecordingError) in
        try Self.chunked(bytes, size: size, path: "m")
      }
      if whole != chunked {
        Issue.record("round \(round), chunks of \(size): \(whole) / \(chunked)")
        return
      }
    }
  }

  /// Parses `bytes` whole with the one-pass reading of evemu's layout on or off: the
  /// events, or the error's text.
  static func outcome(_ bytes: [UInt8], quick: Bool) -> String {
    var parser = EvemuParser(path: "q", quickLines: quick)
    var events: [RecordedEvent] = []
    let failure: RecordingError? = bytes.withUnsafeBytes { all in
      do throws(RecordingError) {
        try parser.feed(all) { events.append($0) }
        try parser.finish { events.append($0) }
        return nil
      } catch { return error }
    }
    return failure?.description ?? "\(events)"
  }

  /// The one-pass reading takes only the lines the full reading reads alike: every
  /// mix of field spellings at and past their limits, with blank space and comments
  /// around them, after an event that is earlier, the same or later, gives the same
  /// event or the same error with it on and off.
  @Test func theOnePassReadingGivesWhatTheFullReadingGives() {
    // Each field: what evemu writes (first, taken three times in four), then spellings
    // the full reading may or may not take.
    let heads = (["E: "], ["E:  ", "E:\t", " E: ", "E:", "\u{FEFF}E: ", "e: ", "E ; "])
    let times = (
      [
        "12.345678", "0.5", "5.000001", "5", "0", "9223372035.999999999", "1234567.000001",
        "12345678.123456", "0000000.000000", "6.00000", "6.0000000",
      ],
      [
        "1.", ".5", "999999999999.123456789", "9223372036.0", "1234567890123.0",
        "1.1234567890", "1.1234567", "000000000001.5", "0000000000001.5", "1e5", "1.2.3",
        "4.999999",
      ]
    )
    let hexes = (
      ["0001", "004f", "1", "00AF", "ffff", "FFFF", "0aF9"],
      ["12345", "g", "-1", "0x1", "#1", "", "00G0", "0:0@", "`0af", "\u{E9}01", "0/1"]
    )
    let values = (
      [
        "0001", "-001", "+5", "2147483647", "-2147483648", "0", "-0", "00000000002147483647",
        "1234567", "-9999999", "12345678", "0000000", "00000000", "458831",
      ],
      ["2147483648", "-2147483649", "1x", "-", "+", "99999999999999999999", ""]
    )
    let tails = (
      ["", "\t# EV_KEY / KEY_KP1  1", "#c", "\r", "  \r", " # c", "\t", "\t#", "\t#\u{E9}"],
      [" x", " 1", "x", "\tx", "\t\t#"]
    )
    let blanks = ([" "], ["\t", "  ", "", "\u{0B}"])
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33) % bound
    }
    func pick(_ lists: ([String], [String])) -> String {
      let list = random(4) < 3 ? lists.0 : lists.1
      return list[random(list.count)]
    }
    var quickOnes = 0
    for round in 0..<20_000 {
      let line =
        pick(heads) + pick(times) + pick(blanks) + pick(hexes) + pick(blanks) + pick(hexes)
        + pick(blanks) + pick(values) + pick(tails)
      // Before it, nothing or an event at 5 s (for the rule that times never go back).
      let text =
        (random(2) == 0 ? "" : "E: 5.000000 0000 0000 0000\n") + line + pick((["\n"], [""]))
      let bytes = Array(text.utf8)
      let quick = Self.outcome(bytes, quick: true)
      let full = Self.outcome(bytes, quick: false)
      if quick != full {
        Issue.record("round \(round), \(text.debugDescription): \(quick) / \(full)")
        return
      }
      let parsed = Array(line.utf8).withUnsafeBufferPointer {
        EvemuParser.quickEvent($0.baseAddress!, count: $0.count)
      }
      if parsed != nil { quickOnes += 1 }
    }
    // Both readings were exercised: many lines went the one-pass way, many did not.
    #expect(quickOnes > 2000)
    #expect(quickOnes < 18_000)
  }

  /// What evemu-record writes takes the one-pass reading, to the event it says.
  @Test func evemuRecordsLayoutTakesTheOnePassReading() {
    func quick(_ line: String) -> RecordedEvent? {
      Array(line.utf8).withUnsafeBufferPointer {
        EvemuParser.quickEvent($0.baseAddress!, count: $0.count)
      }
    }
    #expect(
      quick("E: 1700000000.123456 0001 004f 0001\t# EV_KEY / KEY_KP1   1")
        == RecordedEvent(nanoseconds: 1_700_000_000_123_456_000, type: 1, code: 0x4f, value: 1))
    #expect(
      quick("E: 0.000000 0004 0004 458831\t# EV_MSC / MSC_SCAN             458831")
        == RecordedEvent(nanoseconds: 0, type: 4, code: 4, value: 458_831))
    #expect(
      quick("E: 3.5 0003 0035 -001\r")
        == RecordedEvent(
          nanoseconds: 3_500_000_000, type: 3, code: 0x35, value: -1))
    #expect(
      quick("E: 0.000000 0000 0000 0000")
        == RecordedEvent(nanoseconds: 0, type: 0, code: 0, value: 0))
    // Any other layout is left to the full reading.
    #expect(quick("N: bench keypad") == nil)
    #expect(quick("E: 1.0 0001 004f") == nil)
    #expect(quick("E: 1.0 0001 004f 0001 5") == nil)
  }

  /// The word-at-a-time readings of evemu-record's fields agree with a reading of one
  /// byte at a time, for every byte in every place and for random words.
  @Test func wordAtATimeFieldsAgreeWithByteAtATime() {
    func hexByte(_ c: UInt8) -> UInt16? {
      switch c {
      case 0x30...0x39: return UInt16(c - 0x30)
      case 0x41...0x46, 0x61...0x66: return UInt16(c & 0x0F) + 9
      default: return nil
      }
    }
    func hexBytes(_ b: [UInt8]) -> UInt16? {
      var v: UInt16 = 0
      for c in b {
        guard let d = hexByte(c) else { return nil }
        v = v << 4 | d
      }
      return v
    }
    func digitsBytes(_ b: [UInt8]) -> (value: UInt32, count: Int)? {
      var v: UInt32 = 0
      var count = 0
      for c in b {
        guard c >= 0x30 && c <= 0x39 else { break }
        v = v * 10 + UInt32(c - 0x30)
        count += 1
      }
      return count >= 1 && count <= 7 ? (v, count) : nil
    }
    func word<T: FixedWidthInteger>(_ b: [UInt8], as: T.Type) -> T {
      b.withUnsafeBytes { $0.loadUnaligned(as: T.self) }
    }
    var state: UInt64 = 0x1234_5678_9ABC_DEF1
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33) % bound
    }
    // Every byte in every place of "0a0F" and of "12345678".
    for place in 0..<8 {
      for byte in 0...255 {
        var hex = Array("0a0F".utf8)
        var digits = Array("12345678".utf8)
        digits[place] = UInt8(byte)
        if place < 4 { hex[place] = UInt8(byte) }
        #expect(EvemuParser.fourHexDigits(word(hex, as: UInt32.self)) == hexBytes(hex))
        let got = EvemuParser.leadingDigits(word(digits, as: UInt64.self))
        let want = digitsBytes(digits)
        #expect(got?.value == want?.value && got?.count == want?.count, "\(digits)")
      }
    }
    // Random words, most bytes near the digits and letters.
    let near = Array("0123456789abcdefABCDEF/:@G`g \t#-".utf8) + [0x00, 0x7F, 0x80, 0xB0, 0xFF]
    for _ in 0..<50_000 {
      let bytes = (0..<8).map { _ in near[random(near.count)] }
      let four = Array(bytes[0..<4])
      #expect(EvemuParser.fourHexDigits(word(four, as: UInt32.self)) == hexBytes(four))
      let got = EvemuParser.leadingDigits(word(bytes, as: UInt64.self))
      let want = digitsBytes(bytes)
      #expect(got?.value == want?.value && got?.count == want?.count, "\(bytes)")
      var six = Array(bytes[0..<6]) + [0, 0]
      if random(2) == 0 { for i in 0..<6 where random(4) > 0 { six[i] = 0x30 + UInt8(random(10)) } }
      let sixWant = digitsBytes(Array(six[0..<6])).flatMap { $0.count == 6 ? $0.value : nil }
      #expect(EvemuParser.sixDigits(word(six, as: UInt64.self)) == sixWant, "\(six)")
    }
  }

  @Test func aHugeRecordingParsesInChunksWithEveryEvent() throws {
    // 40 000 presses, as the replay benchmark uses: 160 001 events, about 9 MB.
    let keys = (0..<40_000).map { (KeyCode.keypad(UInt8($0 % 10)), gapSeconds: 0.001) }
    let bytes = Array(EvemuWriter.keyPresses(keys).utf8)
    #expect(bytes.count > 8_000_000)
    var count = 0
    var last = RecordedEvent(time: .zero, type: 0, code: 0, value: 0)
    var parser = EvemuParser(path: "huge")
    let failure = bytes.withUnsafeBytes { all -> RecordingError? in
      var start = 0
      while start < all.count {
        let end = min(all.count, start + 65536)
        do throws(RecordingError) {
          try parser.feed(UnsafeRawBufferPointer(rebasing: all[start..<end])) {
            count += 1
            last = $0
          }
        } catch { return error }
        start = end
      }
      return nil
    }
    #expect(failure == nil)
    try parser.finish { _ in count += 1 }
    #expect(count == 160_001)
    #expect(parser.line == bytes.filter { $0 == 0x0A }.count)
    #expect(
      last == RecordedEvent(time: .microseconds(40_000_000 + 50_000), type: 0, code: 0, value: 0))
  }
}
