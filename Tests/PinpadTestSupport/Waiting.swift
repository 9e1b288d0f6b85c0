import Glibc

/// Time and bounded waits for tests. The daemon tests extend it with the paths of the
/// built programs and key recordings.
public enum E2E {
  /// SIGPIPE ignored in the test process (a peer that went away is an EPIPE, not a
  /// crash of the runner); touched by every helper that writes to another process.
  public static let ignorePipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

  /// Monotonic seconds.
  public static func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  public static func sleep(_ seconds: Double) { usleep(UInt32(seconds * 1e6)) }

  /// Polls `condition` every 10 ms until it holds or `timeout` passes.
  @discardableResult
  public static func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let end = now() + timeout
    while now() < end {
      if condition() { return true }
      sleep(0.01)
    }
    return condition()
  }
}

/// A test's own failure, with what it saw.
public struct ClientError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
