/// One input event of a recording, timed from the recording's first event.
public struct RecordedEvent: Equatable, Sendable {
  /// Offset from the first event of the recording, in nanoseconds.
  public var nanoseconds: Int64
  public var type: UInt16
  public var code: UInt16
  public var value: Int32
  /// Offset from the first event of the recording.
  public var time: Duration {
    get { .nanoseconds(nanoseconds) }
    set { nanoseconds = newValue.nanoseconds }
  }
  public init(time: Duration, type: UInt16, code: UInt16, value: Int32) {
    self.init(nanoseconds: time.nanoseconds, type: type, code: code, value: value)
  }
  public init(nanoseconds: Int64, type: UInt16, code: UInt16, value: Int32) {
    self.nanoseconds = nanoseconds
    self.type = type
    self.code = code
    self.value = value
  }
}

/// A recording `--input replay:FILE` cannot use: `PATH:LINE: message`.
public typealias RecordingError = FileLineError

/// Reads the event lines of an `evemu-record` recording:
///
///     E: 1700000000.123456 0001 004f 0001	# EV_KEY / KEY_KP1   1
///
/// seconds.fraction, hex type, hex code, decimal value (evemu prints it as `%04d`, so
/// `-001` is -1), optionally followed by a `#` comment. The device description (`N:`,
/// `I:`, `P:`, `B:`, `A:`, `L:`, `S:`), `#` comments and blank lines are skipped; any
/// other line is an error, so a file that is not a recording is not replayed as
/// nothing. Older evemu wrote the kernel's timestamps and newer ones start at 0: either
/// way times are taken relative to the first event, and must not go backwards.
///
/// Lines end in LF (a CR before it is blank space); blank space is ASCII (space, tab,
/// CR, VT, FF), and a UTF-8 byte-order mark before a line's first field is skipped.
/// Any bytes are accepted: what is not a recording is an error, never a trap.
public enum EvemuRecording {
  /// The recorded device as its `N:` (name) and `I:` (bus, vendor, product in hex)
  /// lines describe it, for matching `CardReader=` tokens; `path` stands for its node.
  /// Lines end at LF (a CR before it is dropped); the header ends at the first `E:` line,
  /// so only the lines before it are looked at.
  public static func device(_ text: String, path: String) -> DeviceIdentity {
    device(Array(text.utf8), path: path)
  }

  /// `device(_:path:)` over the recording's first bytes (a chunk of the file, say).
  public static func device(_ bytes: some BidirectionalCollection<UInt8>, path: String)
    -> DeviceIdentity
  {
    var identity = DeviceIdentity(devnode: path)
    var start = bytes.startIndex
    while start != bytes.endIndex {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
      var line = bytes[start..<end]
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      start = end == bytes.endIndex ? end : bytes.index(after: end)
      if line.starts(with: "N: ".utf8) {
        if identity.name.isEmpty {
          identity.name = String(decoding: line.dropFirst(3), as: UTF8.self)
        }
      } else if line.starts(with: "I: ".utf8) {
        let ids = line.dropFirst(3).split(separator: UInt8(ascii: " ")).map {
          UInt16(String(decoding: $0, as: UTF8.self), radix: 16)
        }
        if ids.count >= 3, let bus = ids[0], let vendor = ids[1], let product = ids[2] {
          identity.bustype = bus
          identity.vendor = vendor
          identity.product = product
        }
      } else if line.starts(with: "E: ".utf8) {
        break
      }
    }
    return identity
  }

  public static func parse(_ text: String, path: String) throws(RecordingError) -> [RecordedEvent] {
    var text = text
    return try text.withUTF8 { parse(UnsafeRawBufferPointer($0), path: path) }.get()
  }

  /// The whole recording in `bytes` (the fuzzing entry point: any bytes, never a trap).
  public static func parse(_ bytes: [UInt8], path: String) throws(RecordingError)
    -> [RecordedEvent]
  {
    try bytes.withUnsafeBytes { parse($0, path: path) }.get()
  }

  private static func parse(_ bytes: UnsafeRawBufferPointer, path: String) -> Result<
    [RecordedEvent], RecordingError
  > {
    var events: [RecordedEvent] = []
    var parser = EvemuParser(path: path)
    do throws(RecordingError) {
      try parser.feed(bytes) { events.append($0) }
      try parser.finish { events.append($0) }
    } catch {
      return .failure(error)
    }
    return .success(events)
  }

  /// The largest whole-seconds part a timestamp may have: 2^63 ns is about 292 years,
  /// so any later time could not be held in nanoseconds.
  public static let maxSeconds: Int64 = Int64.max / 1_000_000_000 - 1
}

/// The recording parser, fed the file in chunks of any size as it is read, so that a
/// replay holds neither the file nor the events it does not use. Gives each event as
/// its line ends; the same bytes give the same events and errors however they are cut.
public struct EvemuParser: Sendable {
  /// The longest line accepted (evemu's are under 100 bytes); it bounds what a line cut
  /// between two chunks keeps.
  public static let maxLineLength = 65536

  public let path: String
  /// Lines read so far.
  public private(set) var line = 0
  /// Whether lines laid out as evemu-record writes them are read in one pass first
  /// (`quickEvent`); false reads every line the full way only, the reference that
  /// the tests and the fuzz target hold the quick reading to.
  public let quickLines: Bool
  /// The start of a line whose end is in a later chunk.
  private var carry: [UInt8] = []
  private var first: Int64? = nil
  private var previous: Int64 = 0

  public init(path: String, quickLines: Bool = true) {
    self.path = path
    self.quickLines = quickLines
  }

  /// Parses the lines that end in `chunk` (with what an earlier chunk left unfinished),
  /// giving their events to `event` in order; keeps the unfinished end for the next.
  public mutating func feed(
    _ chunk: UnsafeRawBufferPointer, _ event: (RecordedEvent) -> Void
  ) throws(RecordingError) {
    guard let raw = chunk.baseAddress, chunk.count > 0 else { return }
    let base = raw.assumingMemoryBound(to: UInt8.self)
    let end = chunk.count
    var i = 0
    if !carry.isEmpty {
      let j = Self.lineFeed(base, from: 0, to: end)
      guard carry.count + j <= Self.maxLineLength else { throw tooLong() }
      carry.append(contentsOf: UnsafeBufferPointer(start: base, count: j))
      if j == end { return }
      try finishCarried(event)
      i = j + 1
    }
    while i < end {
      let j = Self.lineFeed(base, from: i, to: end)
      guard j - i <= Self.maxLineLength else { throw tooLong() }
      if j == end {
        carry.append(contentsOf: UnsafeBufferPointer(start: base + i, count: j - i))
        return
      }
      try parseLine(base + i, count: j - i, event)
      i = j + 1
    }
  }

  /// The index of the first line feed in `base[i..<end]`, `end` when there is none;
  /// sixteen bytes at a time, then eight (a word holding no 0x0A is skipped whole).
  @inline(__always)
  static func lineFeed(_ base: UnsafePointer<UInt8>, from i: Int, to end: Int) -> Int {
    var j = i
    let raw = UnsafeRawPointer(base)
    while j <= end &- 16 {
      let a = lineFeeds(raw.loadUnaligned(fromByteOffset: j, as: UInt64.self))
      let b = lineFeeds(raw.loadUnaligned(fromByteOffset: j &+ 8, as: UInt64.self))
      if a | b != 0 {
        return a != 0 ? j &+ a.trailingZeroBitCount &>> 3 : j &+ 8 &+ b.trailingZeroBitCount &>> 3
      }
      j &+= 16
    }
    while j <= end &- 8 {
      let found = lineFeeds(raw.loadUnaligned(fromByteOffset: j, as: UInt64.self))
      if found != 0 { return j &+ found.trailingZeroBitCount &>> 3 }
      j &+= 8
    }
    while j < end && base[j] != 0x0A { j += 1 }
    return j
  }

  /// A high bit for each line feed in the eight bytes of `word` as loaded from memory
  /// (and perhaps for bytes after one): the lowest marks the first.
  @inline(__always)
  static func lineFeeds(_ word: UInt64) -> UInt64 {
    let x = UInt64(littleEndian: word) ^ 0x0A0A_0A0A_0A0A_0A0A
    return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
  }

  /// Parses a last line that has no line feed; call once after the last chunk.
  public mutating func finish(_ event: (RecordedEvent) -> Void) throws(RecordingError) {
    if !carry.isEmpty { try finishCarried(event) }
  }

  private mutating func finishCarried(_ event: (RecordedEvent) -> Void) throws(RecordingError) {
    let carried = carry
    carry.removeAll(keepingCapacity: true)
    let result = carried.withUnsafeBufferPointer { buffer -> RecordingError? in
      do throws(RecordingError) {
        try parseLine(buffer.baseAddress!, count: buffer.count, event)
        return nil
      } catch {
        return error
      }
    }
    if let result { throw result }
  }

  private func tooLong() -> RecordingError {
    RecordingError(
      path: path, line: line + 1, message: "line is longer than \(Self.maxLineLength) bytes")
  }

  /// One line, without its line feed: the one-pass reading in line, the full one
  /// called for what that does not take.
  @inline(__always)
  private mutating func parseLine(
    _ p: UnsafePointer<UInt8>, count n: Int, _ event: (RecordedEvent) -> Void
  ) throws(RecordingError) {
    line += 1
    if quickLines, let quick = Self.quickEvent(p, count: n),
      first == nil || quick.nanoseconds >= previous
    {
      emit(quick, event)
      return
    }
    try readLine(p, count: n, event)
  }

  /// The full reading of one line (already counted), to its event or its error.
  @inline(never)
  private mutating func readLine(
    _ p: UnsafePointer<UInt8>, count n: Int, _ event: (RecordedEvent) -> Void
  ) throws(RecordingError) {
    var k = 0
    while k < n {
      if Self.isBlank(p[k]) {
        k += 1
      } else if p[k] == 0xEF && k + 2 < n && p[k + 1] == 0xBB && p[k + 2] == 0xBF {
        k += 3  // a byte-order mark
      } else {
        break
      }
    }
    if k == n || p[k] == UInt8(ascii: "#") { return }
    guard k + 1 < n, p[k + 1] == UInt8(ascii: ":") else { throw notEvemu() }
    switch p[k] {
    case UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "P"), UInt8(ascii: "B"),
      UInt8(ascii: "A"), UInt8(ascii: "L"), UInt8(ascii: "S"):
      return
    case UInt8(ascii: "E"): break
    default: throw notEvemu()
    }
    var bodyEnd = k + 2
    while bodyEnd < n && p[bodyEnd] != UInt8(ascii: "#") { bodyEnd += 1 }

    // Up to 4 fields as start..<end; a fifth only counts for the message.
    var starts = (0, 0, 0, 0)
    var ends = (0, 0, 0, 0)
    var fields = 0
    var q = k + 2
    while true {
      while q < bodyEnd && Self.isBlank(p[q]) { q += 1 }
      if q == bodyEnd { break }
      let s = q
      while q < bodyEnd && !Self.isBlank(p[q]) { q += 1 }
      switch fields {
      case 0: (starts.0, ends.0) = (s, q)
      case 1: (starts.1, ends.1) = (s, q)
      case 2: (starts.2, ends.2) = (s, q)
      case 3: (starts.3, ends.3) = (s, q)
      default: break
      }
      fields += 1
    }
    guard fields == 4 else {
      throw fail("an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found \(fields)")
    }
    func text(_ s: Int, _ e: Int) -> String {
      String(decoding: UnsafeBufferPointer(start: p + s, count: e - s), as: UTF8.self)
    }
    let nanoseconds: Int64
    switch Self.timestamp(p, starts.0, ends.0) {
    case .time(let t): nanoseconds = t
    case .tooLate:
      throw fail(
        "time \(text(starts.0, ends.0)) is past the largest one, \(EvemuRecording.maxSeconds) s")
    case .invalid:
      throw fail("\(text(starts.0, ends.0)) is not a timestamp like 1700000000.123456")
    }
    guard let type = Self.hex(p, starts.1, ends.1) else {
      throw fail("event type \(text(starts.1, ends.1)) is not 1 to 4 hex digits")
    }
    guard let code = Self.hex(p, starts.2, ends.2) else {
      throw fail("event code \(text(starts.2, ends.2)) is not 1 to 4 hex digits")
    }
    guard let value = Self.decimal(p, starts.3, ends.3) else {
      throw fail("event value \(text(starts.3, ends.3)) is not a 32-bit decimal number")
    }
    if first != nil, nanoseconds < previous {
      throw fail("time \(text(starts.0, ends.0)) is earlier than the event before it")
    }
    emit(RecordedEvent(nanoseconds: nanoseconds, type: type, code: code, value: value), event)
  }

  /// Gives `read` (its time as written) timed from the first event; times never go
  /// back, which the caller has checked.
  @inline(__always)
  private mutating func emit(_ read: RecordedEvent, _ event: (RecordedEvent) -> Void) {
    let start = first ?? read.nanoseconds
    first = start
    previous = read.nanoseconds
    var timed = read
    timed.nanoseconds = read.nanoseconds - start  // never negative: see above
    event(timed)
  }

  /// A line as evemu-record writes it (`E: 12.345678 0001 004f 0001` and a comment),
  /// read in one pass over its fields; nil for any other layout, which the full reading
  /// then takes (to the same event, or to its error). Its time is as written. It accepts
  /// only lines whose four fields the full reading splits alike and reads as valid,
  /// so both give the same event: `E`, `:`, blank space, then each field by the same
  /// rules, ended by blank space, a `#` (after the value only) or the line's end.
  @inline(__always)
  static func quickEvent(_ p: UnsafePointer<UInt8>, count n: Int) -> RecordedEvent? {
    if let event = recordedLine(p, count: n) { return event }
    return quickFields(p, count: n)
  }

  /// Exactly what evemu-record writes (`E: %lu.%06u %04x %04x %04d`, then a tab and a
  /// comment, or the line's end), its fixed-width fields read eight or four bytes at a
  /// time; nil for anything else, which `quickFields` then reads. Each field is one the
  /// full reading splits alike (single spaces between them) and reads to the same value.
  @inline(__always)
  static func recordedLine(_ p: UnsafePointer<UInt8>, count n: Int) -> RecordedEvent? {
    // "E: ", seconds, and 19 bytes at least: ".dddddd tttt cccc v".
    guard n >= 23, p[0] == UInt8(ascii: "E"), p[1] == UInt8(ascii: ":"),
      p[2] == UInt8(ascii: " ")
    else { return nil }
    let raw = UnsafeRawPointer(p)
    // Seconds: 1 to 7 digits (evemu-record's times start at 0; more go the long way).
    guard
      let (secondsValue, secondsDigits) = leadingDigits(
        raw.loadUnaligned(fromByteOffset: 3, as: UInt64.self))
    else { return nil }
    let seconds = Int64(secondsValue)  // under 10^7: within maxSeconds
    var q = 3 &+ secondsDigits
    guard q + 19 <= n, p[q] == UInt8(ascii: ".") else { return nil }
    // The fraction and the blank after it: ".dddddd " (the word's eighth byte is the
    // type's first digit, read below).
    let fraction = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: q + 1, as: UInt64.self))
    guard (fraction >> 48) & 0xFF == 0x20, let micro = sixDigits(fraction & 0xFFFF_FFFF_FFFF),
      p[q + 12] == UInt8(ascii: " "), p[q + 17] == UInt8(ascii: " "),
      let type = fourHexDigits(raw.loadUnaligned(fromByteOffset: q + 8, as: UInt32.self)),
      let code = fourHexDigits(raw.loadUnaligned(fromByteOffset: q + 13, as: UInt32.self))
    else { return nil }
    // The value: an optional minus and decimal digits within Int32, then a tab and a
    // comment, or the end.
    q += 18
    let negative = p[q] == UInt8(ascii: "-")
    if negative { q += 1 }
    // 1 to 7 digits (within Int32 either way), eight bytes read at once where the line
    // has them; a shorter line's value digit by digit.
    let magnitude: Int64
    if q + 8 <= n {
      guard
        let (digits, count) = leadingDigits(raw.loadUnaligned(fromByteOffset: q, as: UInt64.self))
      else { return nil }
      magnitude = Int64(digits)
      q += count
    } else {
      let valueStart = q
      var m: Int64 = 0
      while q < n, p[q] &- 0x30 < 10, q - valueStart < 7 {
        m = m &* 10 &+ Int64(p[q] &- 0x30)
        q += 1
      }
      guard q > valueStart else { return nil }
      magnitude = m
    }
    guard q == n || (p[q] == 0x09 && q + 1 < n && p[q + 1] == UInt8(ascii: "#")) else {
      return nil
    }
    return RecordedEvent(
      nanoseconds: seconds &* 1_000_000_000 &+ Int64(micro) &* 1000, type: type, code: code,
      value: Int32(truncatingIfNeeded: negative ? -magnitude : magnitude))
  }

  /// The decimal digits that `word` (as loaded from memory) begins with, as their number
  /// and count: nil unless there are 1 to 7 of them (an eighth is left to the long way).
  @inline(__always)
  static func leadingDigits(_ word: UInt64) -> (value: UInt32, count: Int)? {
    let w = UInt64(littleEndian: word)
    let t = w ^ 0x3030_3030_3030_3030  // a digit's byte becomes 0...9
    // Per byte, a high bit unless it is 0...9 (the low seven bits plus 0x76 carry into
    // the eighth from 10 on, and never past it).
    let other = (((t & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080
    let count = other.trailingZeroBitCount &>> 3
    guard count >= 1, count <= 7 else { return nil }
    let shift = UInt64(8 &* (8 &- count))
    // The digits moved to the high end (the last bytes), the low ones made "0".
    return (eightDigits(w &<< shift | 0x3030_3030_3030_3030 &>> (64 &- shift)), count)
  }

  /// Eight ASCII digits (the first, most significant, in the lowest byte) as their
  /// number; the bytes are not checked.
  @inline(__always)
  static func eightDigits(_ v: UInt64) -> UInt32 {
    var d = v & 0x0F0F_0F0F_0F0F_0F0F
    d = (d &* 10 &+ (d &>> 8)) & 0x00FF_00FF_00FF_00FF  // pairs: 0...99 in every other byte
    d = (d &* 100 &+ (d &>> 16)) & 0x0000_FFFF_0000_FFFF  // fours: 0...9999
    d = (d &* 10000 &+ (d &>> 32)) & 0xFFFF_FFFF  // all eight
    return UInt32(truncatingIfNeeded: d)
  }

  /// Six ASCII decimal digits in the low six bytes of `word` (the first in the lowest)
  /// as their number, nil unless all six are digits: eight digits at once, the two
  /// high bytes made leading zeros.
  @inline(__always)
  static func sixDigits(_ word: UInt64) -> UInt32? {
    let v = word &<< 16 | 0x3030
    // Each byte 0x30...0x39: its high nibble 3, and adding 6 does not carry into it.
    guard
      (v & 0xF0F0_F0F0_F0F0_F0F0) | (((v &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) &>> 4)
        == 0x3333_3333_3333_3333
    else { return nil }
    return eightDigits(v)
  }

  /// Four ASCII hex digits (either case) in `word` as loaded from memory (the first in
  /// the lowest byte) as their number, nil unless all four are hex digits.
  @inline(__always)
  static func fourHexDigits(_ word: UInt32) -> UInt16? {
    let x = UInt32(littleEndian: word)
    guard x & 0x8080_8080 == 0 else { return nil }
    // Per byte (all below 0x80, so no carry crosses one): 0x80 when it lies in a range.
    let digit = (x &+ 0x5050_5050) & ~(x &+ 0x4646_4646) & 0x8080_8080  // 0x30...0x39
    let folded = x | 0x2020_2020  // A-F to a-f
    let letter = (folded &+ 0x1F1F_1F1F) & ~(folded &+ 0x1919_1919) & 0x8080_8080  // a-f
    guard digit | letter == 0x8080_8080 else { return nil }
    let v = (x & 0x0F0F_0F0F) &+ (letter &>> 7) &* 9  // each byte its digit's value
    let pairs = (v &<< 4 | v &>> 8) & 0x00FF_00FF  // bytes 0 and 2: two digits each
    return UInt16(truncatingIfNeeded: (pairs & 0xFF) &<< 8 | pairs &>> 16)
  }

  /// `quickEvent`'s reading of the fields one byte at a time, for any blank space
  /// between them and any number of digits the full reading takes (evemu-record's own
  /// layout is `recordedLine`'s).
  @inline(__always)
  static func quickFields(_ p: UnsafePointer<UInt8>, count n: Int) -> RecordedEvent? {
    guard n >= 10, p[0] == UInt8(ascii: "E"), p[1] == UInt8(ascii: ":"), isBlank(p[2])
    else { return nil }
    var q = 3
    while q < n && isBlank(p[q]) { q += 1 }
    // Seconds: 1 to 12 digits; the fraction, if any: a dot and 1 to 9 digits.
    let secondsStart = q
    var seconds: Int64 = 0
    while q < n, p[q] &- 0x30 < 10 {
      seconds = seconds &* 10 &+ Int64(p[q] &- 0x30)
      q += 1
    }
    guard q > secondsStart, q - secondsStart <= 12, seconds <= EvemuRecording.maxSeconds
    else { return nil }
    var fraction: Int64 = 0
    if q < n && p[q] == UInt8(ascii: ".") {
      q += 1
      let fractionStart = q
      while q < n, p[q] &- 0x30 < 10 {
        fraction = fraction &* 10 &+ Int64(p[q] &- 0x30)
        q += 1
      }
      let digits = q - fractionStart
      guard digits >= 1, digits <= 9 else { return nil }
      for _ in digits..<9 { fraction &*= 10 }
    }
    // At most maxSeconds whole seconds: no overflow.
    let nanoseconds = seconds &* 1_000_000_000 &+ fraction
    guard let type = quickHex(p, &q, n), let code = quickHex(p, &q, n) else { return nil }
    // The value: blank space before it, an optional sign, decimal digits within Int32.
    guard q < n, isBlank(p[q]) else { return nil }
    while q < n && isBlank(p[q]) { q += 1 }
    var negative = false
    if q < n && (p[q] == UInt8(ascii: "-") || p[q] == UInt8(ascii: "+")) {
      negative = p[q] == UInt8(ascii: "-")
      q += 1
    }
    let valueStart = q
    var magnitude: Int64 = 0
    while q < n, p[q] &- 0x30 < 10 {
      magnitude = magnitude &* 10 &+ Int64(p[q] &- 0x30)
      guard magnitude <= 2_147_483_648 else { return nil }
      q += 1
    }
    guard q > valueStart, let value = Int32(exactly: negative ? -magnitude : magnitude)
    else { return nil }
    // Then only blank space, up to a comment or the end.
    while q < n && isBlank(p[q]) { q += 1 }
    guard q == n || p[q] == UInt8(ascii: "#") else { return nil }
    return RecordedEvent(nanoseconds: nanoseconds, type: type, code: code, value: value)
  }

  /// Blank space, then 1 to 4 hex digits up to blank space; `q` moves past the digits.
  @inline(__always)
  private static func quickHex(_ p: UnsafePointer<UInt8>, _ q: inout Int, _ n: Int) -> UInt16? {
    guard q < n, isBlank(p[q]) else { return nil }
    while q < n && isBlank(p[q]) { q += 1 }
    let start = q
    var v: UInt16 = 0
    while q < n {
      guard let d = hexDigit(p[q]) else { return q > start && q - start <= 4 ? v : nil }
      v = v &<< 4 | UInt16(d)
      q += 1
    }
    return nil  // the line ended without a value
  }

  private func fail(_ message: String) -> RecordingError {
    RecordingError(path: path, line: line, message: message)
  }

  private func notEvemu() -> RecordingError {
    fail("not an evemu-record line (expected E: SECONDS TYPE CODE VALUE)")
  }

  @inline(__always) private static func isBlank(_ c: UInt8) -> Bool {
    c == 0x20 || (c >= 0x09 && c <= 0x0D)
  }

  private enum Timestamp {
    case time(Int64)
    case tooLate, invalid
  }

  /// `SECONDS.FRACTION` in nanoseconds: 1 to 12 digits, then optionally a dot and 1 to
  /// 9 digits of decimal fraction (evemu writes 6: microseconds); `tooLate` past
  /// `maxSeconds`.
  private static func timestamp(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> Timestamp {
    var q = s
    var seconds: Int64 = 0
    while q < e, let d = digit(p[q]) {
      guard q - s < 12 else { return .invalid }
      seconds = seconds * 10 + d  // at most 12 digits: no overflow
      q += 1
    }
    guard q > s else { return .invalid }
    var fraction: Int64 = 0
    if q < e {
      guard p[q] == UInt8(ascii: ".") else { return .invalid }
      q += 1
      let fractionStart = q
      while q < e, let d = digit(p[q]) {
        guard q - fractionStart < 9 else { return .invalid }
        fraction = fraction * 10 + d  // at most 9 digits: no overflow
        q += 1
      }
      guard q == e, q > fractionStart else { return .invalid }
      for _ in (q - fractionStart)..<9 { fraction *= 10 }
    }
    guard seconds <= EvemuRecording.maxSeconds else { return .tooLate }
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    let (total, overflow2) = scaled.addingReportingOverflow(fraction)
    guard !overflow, !overflow2 else { return .tooLate }
    return .time(total)
  }

  @inline(__always) private static func digit(_ c: UInt8) -> Int64? {
    c >= 0x30 && c <= 0x39 ? Int64(c &- 0x30) : nil
  }

  /// 1 to 4 hex digits.
  private static func hex(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> UInt16? {
    guard e - s >= 1, e - s <= 4 else { return nil }
    var v: UInt16 = 0
    for q in s..<e {
      guard let d = hexDigit(p[q]) else { return nil }
      v = v << 4 | UInt16(d)  // at most 4 digits: 16 bits
    }
    return v
  }

  /// The value of hex digit `c` (either case), nil for any other byte.
  @inline(__always) private static func hexDigit(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: return c &- 0x30
    case 0x41...0x46: return c &- 0x41 &+ 10
    case 0x61...0x66: return c &- 0x61 &+ 10
    default: return nil
    }
  }

  /// An optional sign and decimal digits (leading zeros allowed) within Int32.
  private static func decimal(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> Int32? {
    var q = s
    var negative = false
    if q < e && (p[q] == UInt8(ascii: "-") || p[q] == UInt8(ascii: "+")) {
      negative = p[q] == UInt8(ascii: "-")
      q += 1
    }
    guard q < e else { return nil }
    var magnitude: Int64 = 0
    while q < e {
      guard let d = digit(p[q]) else { return nil }
      magnitude = magnitude * 10 + d  // kept at most 2^31 below: no overflow
      guard magnitude <= 2_147_483_648 else { return nil }
      q += 1
    }
    if negative { return Int32(exactly: -magnitude) }
    return Int32(exactly: magnitude)
  }
}
