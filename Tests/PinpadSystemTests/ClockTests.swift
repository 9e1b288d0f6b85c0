import Glibc
import PinpadCore
import PinpadSystem
import Testing

/// The `at` of a code line (docs/protocol.md, "Socket: code"): UTC with milliseconds,
/// written byte by byte.
@Suite struct ClockTests {
  @Test(arguments: [
    (Int64(0), "1970-01-01T00:00:00.000Z"),
    (1_764_504_000_123_456_789, "2025-11-30T12:00:00.123Z"),
    (951_782_400_999_000_000, "2000-02-29T00:00:00.999Z"),
    (-1, "1969-12-31T23:59:59.999Z"),
    (Int64.max, "2262-04-11T23:47:16.854Z"),
    (Int64.min, "1677-09-21T00:12:43.145Z"),
    (4_107_542_400_000_000_000, "2100-03-01T00:00:00.000Z"),
    (4_107_542_399_999_000_000, "2100-02-28T23:59:59.999Z"),
  ])
  func iso8601IsUTCWithMilliseconds(_ ns: Int64, _ text: String) {
    #expect(UTCTimestamp.string(wallNanoseconds: ns) == text)
  }

  /// The arithmetic against glibc's calendar, for every day of the Int64 range's years
  /// at a few thousand instants, and random nanoseconds.
  @Test func agreesWithGmtime() {
    var generator = SystemRandomNumberGenerator()
    var instants: [Int64] = []
    for day in stride(from: -106_751, through: 106_750, by: 7) {  // every 7th day, all years
      instants.append(Int64(day) * 86_400_000_000_000 + Int64(day & 0xffff) * 1_317_000_000)
    }
    for _ in 0..<20_000 { instants.append(Int64.random(in: .min ... .max, using: &generator)) }
    let wrong = instants.filter { ns in
      UTCTimestamp.string(wallNanoseconds: ns) != gmtimeText(ns)
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(5))")
  }

  private func gmtimeText(_ ns: Int64) -> String {
    let below: Int64 = ns % 1_000_000_000 < 0 ? 1 : 0
    var seconds = time_t(ns / 1_000_000_000 - below)
    let millis = (ns % 1_000_000_000 + below * 1_000_000_000) / 1_000_000
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ v: Int32, _ width: Int) -> String {
      let text = String(v)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
      + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
      + pad(Int32(millis), 3) + "Z"
  }

  @Test func theCurrentTimeHasTheShapeOfTheSpec() {
    let text = UTCTimestamp.string(wallNanoseconds: Clock.wallNanoseconds())
    let shape = text.map { $0.isNumber ? "9" : String($0) }.joined()
    #expect(shape == "9999-99-99T99:99:99.999Z", "\(text)")
  }
}
