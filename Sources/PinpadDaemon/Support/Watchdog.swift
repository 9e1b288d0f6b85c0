import PinpadSystem

/// systemd's watchdog (sd_watchdog_enabled(3)): when the unit sets WatchdogSec=, a timer
/// on the event loop sends WATCHDOG=1 at half that interval.
enum Watchdog {
  /// The timer, watched by `loop`; nil when no watchdog is asked for.
  static func start(loop: EventLoop) throws(Errno) -> Timer? {
    guard let interval = Systemd.watchdogInterval() else { return nil }
    let timer = try Timer()
    try loop.watch(timer.fd, .readable) { [unowned timer] _ in
      timer.acknowledge()
      Systemd.notify("WATCHDOG=1")
    }
    timer.arm(at: Clock.monotonic(), interval: .nanoseconds(interval.nanoseconds / 2))
    return timer
  }
}
