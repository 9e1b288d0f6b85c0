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
}
