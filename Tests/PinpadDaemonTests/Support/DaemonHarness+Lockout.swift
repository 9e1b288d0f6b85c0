import Foundation
import PinpadCore
import PinpadTestSupport
import Testing

/// Lockout state on the harness: a state file in place before the daemon starts (read
/// by the real `LockoutFile.load`, on the manual clock's start), and a keypad's `status`.
extension DaemonHarness {
  /// A harness whose `state/lockout` holds `lockoutFile` when the daemon reads it;
  /// `prepare` may put something else there first (it gets the new temp folder, with
  /// `state/` made).
  convenience init(
    config: String = "", lockoutFile: String? = nil, prepare: (TempDir) throws -> Void = { _ in }
  ) throws {
    let dir = TempDir()
    try FileManager.default.createDirectory(
      atPath: dir.file("state"), withIntermediateDirectories: true)
    if let lockoutFile { dir.write("state/lockout", lockoutFile) }
    try prepare(dir)
    try self.init(config: config, dir: dir)
  }

  /// Moves the manual clock on to exactly `target` (as `advance`, which takes seconds
  /// as a Double and may land a nanosecond short); never back.
  func advance(to target: Instant) {
    var steps = 0
    while now < target, isRunning, steps < 10 {
      advance(Double((target - now).nanoseconds) / 1e9)
      steps += 1
    }
  }
}

extension TestClient {
  /// Keypad `name` in a `status` answer (nil: no answer, or the daemon has not seen the
  /// keypad yet).
  func keypadStatus(_ name: String = "default") throws -> [String: Any]? {
    let keypads = try status()?["keypads"] as? [[String: Any]] ?? []
    return keypads.first { $0.string("name") == name }
  }
}
