/// "2026-11-30T12:00:00.000Z" (UTC, milliseconds) for a wall-clock time in nanoseconds
/// since the Unix epoch: the `at` of a `code` line (docs/protocol.md, "Socket: code").
/// Worked out with integer arithmetic (the proleptic Gregorian calendar from a day count,
/// as in Howard Hinnant's `civil_from_days`), not `gmtime_r`, which takes glibc's time
/// zone lock for every code. An Int64 of nanoseconds spans the years 1677-2262, so the
/// year always has four digits and the text always 24 bytes.
public enum UTCTimestamp {
  public static let length = 24

  /// The 24 bytes, appended to `out` (the code line is written straight into its
  /// buffer: no String is made for it).
  public static func append(wallNanoseconds ns: Int64, to out: inout [UInt8]) {
    // Floor division throughout: a clock before 1970 still gives a valid time.
    let (secondsQuotient, nanos) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
    let seconds = nanos < 0 ? secondsQuotient - 1 : secondsQuotient
    let millis = Int((nanos < 0 ? nanos + 1_000_000_000 : nanos) / 1_000_000)
    let (daysQuotient, secondRest) = seconds.quotientAndRemainder(dividingBy: 86_400)
    let days = Int(secondRest < 0 ? daysQuotient - 1 : daysQuotient)
    let secondOfDay = Int(secondRest < 0 ? secondRest + 86_400 : secondRest)
    // Days since 0000-03-01, in 400-year eras of 146 097 days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 is March
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    // Written into 24 bytes on the stack, then appended at once: one append of a
    // buffer, not one per byte.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { text in
      func put(_ value: Int, at start: Int, width: Int) {
        var value = value
        for i in stride(from: start + width - 1, through: start, by: -1) {
          text[i] = 0x30 + UInt8(value % 10)
          value /= 10
        }
      }
      put(year, at: 0, width: 4)
      text[4] = UInt8(ascii: "-")
      put(month, at: 5, width: 2)
      text[7] = UInt8(ascii: "-")
      put(day, at: 8, width: 2)
      text[10] = UInt8(ascii: "T")
      put(secondOfDay / 3600, at: 11, width: 2)
      text[13] = UInt8(ascii: ":")
      put(secondOfDay / 60 % 60, at: 14, width: 2)
      text[16] = UInt8(ascii: ":")
      put(secondOfDay % 60, at: 17, width: 2)
      text[19] = UInt8(ascii: ".")
      put(millis, at: 20, width: 3)
      text[23] = UInt8(ascii: "Z")
      out.append(contentsOf: UnsafeBufferPointer(text))
    }
  }

  /// The same as a String.
  public static func string(wallNanoseconds ns: Int64) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(length)
    append(wallNanoseconds: ns, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
