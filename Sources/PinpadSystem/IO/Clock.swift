import Glibc
import PinpadCore

/// The clocks the daemon reads. The core never reads a clock; these feed it.
public enum Clock {
  /// CLOCK_MONOTONIC now: the time base of evdev events, timers and the core.
  public static func monotonic() -> Instant {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
  }

  /// CLOCK_REALTIME now, in nanoseconds since the Unix epoch.
  public static func wallNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  /// "2026-11-30T12:00:00.000Z" (UTC, milliseconds) for a wall-clock time.
  public static func iso8601(wallNanoseconds ns: Int64) -> String {
    // Floor division: a clock before 1970 still gives a valid time.
    let below = ns % 1_000_000_000 < 0 ? 1 : 0
    var seconds = time_t(ns / 1_000_000_000) - below
    let millis = Int((ns % 1_000_000_000 + Int64(below) * 1_000_000_000) / 1_000_000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    var out: [UInt8] = []
    out.reserveCapacity(24)
    func pad(_ v: Int, _ width: Int) {
      // At least `width` digits (a year past 9999 takes more), written in place.
      var v = max(v, 0)
      var count = 1
      var rest = v / 10
      while rest > 0 {
        count += 1
        rest /= 10
      }
      count = max(count, width)
      let end = out.count + count
      for _ in 0..<count { out.append(0x30) }
      var i = end - 1
      while v > 0 {
        out[i] = 0x30 + UInt8(v % 10)
        v /= 10
        i -= 1
      }
    }
    pad(Int(parts.tm_year) + 1900, 4)
    out.append(UInt8(ascii: "-"))
    pad(Int(parts.tm_mon) + 1, 2)
    out.append(UInt8(ascii: "-"))
    pad(Int(parts.tm_mday), 2)
    out.append(UInt8(ascii: "T"))
    pad(Int(parts.tm_hour), 2)
    out.append(UInt8(ascii: ":"))
    pad(Int(parts.tm_min), 2)
    out.append(UInt8(ascii: ":"))
    pad(Int(parts.tm_sec), 2)
    out.append(UInt8(ascii: "."))
    pad(millis, 3)
    out.append(UInt8(ascii: "Z"))
    return String(decoding: out, as: UTF8.self)
  }
}
