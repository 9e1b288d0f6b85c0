/// One input event of a recording, timed from the recording's first event.
public struct RecordedEvent: Equatable, Sendable {
  /// Offset from the first event of the recording.
  public var time: Duration
  public var type: UInt16
  public var code: UInt16
  public var value: Int32
  public init(time: Duration, type: UInt16, code: UInt16, value: Int32) {
    self.time = time
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
public enum EvemuRecording {
  /// The recorded device as its `N:` (name) and `I:` (bus, vendor, product in hex)
  /// lines describe it, for matching `CardReader=` tokens; `path` stands for its node.
  public static func device(_ text: String, path: String) -> DeviceIdentity {
    var identity = DeviceIdentity(devnode: path)
    for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
      if line.hasPrefix("N: "), identity.name.isEmpty {
        identity.name = String(line.dropFirst(3))
      } else if line.hasPrefix("I: ") {
        let ids = line.dropFirst(3).split(separator: " ").map { UInt16($0, radix: 16) }
        if ids.count >= 3, let bus = ids[0], let vendor = ids[1], let product = ids[2] {
          identity.bustype = bus
          identity.vendor = vendor
          identity.product = product
        }
      } else if line.hasPrefix("E: ") {
        break
      }
    }
    return identity
  }

  public static func parse(_ text: String, path: String) throws(RecordingError) -> [RecordedEvent] {
    var events: [RecordedEvent] = []
    var start: Int64? = nil
    var previous: Int64 = 0
    var number = 0
    for line in text.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    {
      number += 1
      func fail(_ message: String) -> RecordingError {
        RecordingError(path: path, line: number, message: message)
      }
      let content = line.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
      if content.isEmpty || content.first == "#" { continue }
      let tag = content.prefix(2)
      if ["N:", "I:", "P:", "B:", "A:", "L:", "S:"].contains(tag) { continue }
      guard tag == "E:" else {
        throw fail("not an evemu-record line (expected E: SECONDS TYPE CODE VALUE)")
      }
      let body = content.dropFirst(2).prefix(while: { $0 != "#" })
      let fields = body.split(whereSeparator: \.isWhitespace)
      guard fields.count == 4 else {
        throw fail("an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found \(fields.count)")
      }
      let parsed: Int64?
      do { parsed = try timestamp(fields[0]) } catch {
        throw fail("time \(fields[0]) is past the largest one, \(maxSeconds) s")
      }
      guard let nanoseconds = parsed else {
        throw fail("\(fields[0]) is not a timestamp like 1700000000.123456")
      }
      guard let type = hex(fields[1]) else {
        throw fail("event type \(fields[1]) is not 1 to 4 hex digits")
      }
      guard let code = hex(fields[2]) else {
        throw fail("event code \(fields[2]) is not 1 to 4 hex digits")
      }
      guard let value = Int32(fields[3]) else {
        throw fail("event value \(fields[3]) is not a 32-bit decimal number")
      }
      let first = start ?? nanoseconds
      start = first
      guard nanoseconds >= previous || events.isEmpty else {
        throw fail("time \(fields[0]) is earlier than the event before it")
      }
      previous = nanoseconds
      events.append(
        RecordedEvent(
          time: .nanoseconds(nanoseconds - first), type: type, code: code, value: value))
    }
    return events
  }

  /// The largest whole-seconds part a timestamp may have: 2^63 ns is about 292 years,
  /// so any later time could not be held in nanoseconds.
  public static let maxSeconds: Int64 = Int64.max / 1_000_000_000 - 1

  /// `SECONDS.FRACTION` in nanoseconds, nil past `maxSeconds`; the fraction is a
  /// decimal fraction of up to 9 digits (evemu writes 6: microseconds).
  private static func timestamp(_ text: Substring) throws(TimestampTooLate) -> Int64? {
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let whole = parts[0]
    let fraction = parts.count == 2 ? parts[1] : ""
    let digits = { (part: Substring) in part.allSatisfy { $0.isASCII && $0.isNumber } }
    guard !whole.isEmpty, whole.count <= 12, digits(whole), digits(fraction),
      fraction.count <= 9, parts.count == 1 || !fraction.isEmpty,
      let seconds = Int64(whole)
    else { return nil }
    guard seconds <= maxSeconds else { throw .tooLate }
    let padded = String(fraction) + String(repeating: "0", count: 9 - fraction.count)
    return seconds * 1_000_000_000 + Int64(padded)!
  }

  private enum TimestampTooLate: Error { case tooLate }

  private static func hex(_ text: Substring) -> UInt16? {
    guard (1...4).contains(text.count), text.allSatisfy(\.isHexDigit) else { return nil }
    return UInt16(text, radix: 16)
  }
}
