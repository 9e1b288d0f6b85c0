import PinpadCore

/// Times in the replica and the door's log messages (docs/protocol.md, "Replica"):
/// `2026-12-07T05:00:00.000Z`, UTC with milliseconds, as the access log's JSON writes
/// them; milliseconds since the Unix epoch in Swift.
public enum UTCTime {
  /// The latest time written or read: 9 000 000 000 000 ms (the year 2255), well inside
  /// what `UTCTimestamp` writes from nanoseconds in an Int64.
  public static let maxMs: Int64 = 9_000_000_000_000

  /// The 24 bytes for `ms`, clamped to 0...`maxMs`.
  public static func text(ms: Int64) -> [UInt8] {
    var out: [UInt8] = []
    UTCTimestamp.append(wallNanoseconds: min(max(ms, 0), maxMs) * 1_000_000, to: &out)
    return out
  }

  /// The milliseconds of exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` (a real date, from 1970 up to
  /// `maxMs`), nil for anything else.
  public static func ms(_ text: some Collection<UInt8>) -> Int64? {
    let t = Array(text)
    guard t.count == 24, t[4] == 0x2D, t[7] == 0x2D, t[10] == 0x54, t[13] == 0x3A,
      t[16] == 0x3A, t[19] == 0x2E, t[23] == 0x5A
    else { return nil }
    func number(_ start: Int, _ width: Int) -> Int? {
      var value = 0
      for byte in t[start..<start + width] {
        guard (0x30...0x39).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      return value
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      let milli = number(20, 3), year >= 1970, (1...12).contains(month),
      (1...CivilCalendar.daysIn(year: year, month: month)).contains(day), hour < 24,
      minute < 60, second < 60
    else { return nil }
    let days = CivilCalendar.days(year: year, month: month, day: day)
    let ms =
      ((days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000) + Int64(milli)
    return ms <= maxMs ? ms : nil
  }
}
