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
    var seconds = time_t(ns / 1_000_000_000)
    let millis = Int((ns % 1_000_000_000) / 1_000_000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ v: Int32, _ width: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
      + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
      + ".\(pad(Int32(millis), 3))Z"
  }
}
