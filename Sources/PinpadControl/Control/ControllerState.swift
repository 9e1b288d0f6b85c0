import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// The controller's state directory (pinpadctl(1), ACCESS LOG): `--state-dir DIR`, else
/// `$STATE_DIRECTORY` when systemd sets it (the first of its directories), else
/// /var/lib/pinpadd-serve.
enum ControllerStateDirectory {
  static let standard = "/var/lib/pinpadd-serve"

  static func resolve(
    _ given: String?,
    environment: String? = getenv("STATE_DIRECTORY").map {
      String(cString: $0)
    }, standard: String = ControllerStateDirectory.standard
  ) -> String {
    if let given { return given }
    if let environment, let first = environment.split(separator: ":").first, !first.isEmpty {
      return String(first)
    }
    return standard
  }
}

/// The controller's lockout (`ControllerLockout`) kept in a file of the state directory,
/// in `LockoutStore`'s format, written (atomically) whenever a verdict changes it
/// (`DecisionCore`'s `.saveLockout`), so a restart does not reset a lockout. The one
/// place that knows how it is stored.
final class LockoutKeeper {
  let path: String
  /// The lockout as the file left it (every place locked when it cannot be read).
  let restored: ControllerLockout
  private let log: (LogLine) -> Void
  /// Why the last save failed (said once until a save works again).
  private var saveProblem: String? = nil

  /// Makes the directory (0700) when needed and reads the file. A directory that cannot
  /// be written is an error (exit 69): lockouts would silently stop surviving restarts.
  init(
    directory: String, file: String, rules: LockoutConfig,
    global: ControllerLockout.GlobalBound = .standard, log: @escaping (LogLine) -> Void
  ) throws(ControlError) {
    path = directory + "/" + file
    self.log = log
    do {
      try FileSystem.makeDirectories(directory, mode: 0o700)
      try FileSystem.checkWritable(directory)
    } catch {
      throw ControlError(
        "state directory: \(error); the lockout could not survive a restart (--state-dir DIR)")
    }
    guard FileSystem.exists(path) else {
      restored = ControllerLockout(rules: rules, global: global)
      return
    }
    let now = Clock.monotonic()
    let text: String
    do { text = String(decoding: try FileSystem.read(path, limit: 4 << 20), as: UTF8.self) } catch {
      log(.warning("\(error); every keypad starts locked for \(rules.lockout.seconds) s"))
      restored = ControllerLockout(
        rules: rules, global: global,
        states: ["*": LockoutState(level: 1, lockedUntil: now + rules.lockout)])
      return
    }
    let parsed = LockoutStore.parse(
      text, nowMono: now, nowWallMs: Clock.wallNanoseconds() / 1_000_000,
      conservative: rules.lockout)
    for problem in parsed.problems.prefix(3) {
      log(.warning("\(path): \(problem); treated as locked for \(rules.lockout.seconds) s"))
    }
    restored = ControllerLockout(rules: rules, global: global, states: parsed.states)
  }

  /// Writes `states` (atomically); a failure is said once until a save works again.
  func save(_ states: [String: LockoutState]) {
    let text = LockoutStore.render(
      states, nowMono: Clock.monotonic(), nowWallMs: Clock.wallNanoseconds() / 1_000_000)
    do {
      try FileSystem.writeAtomically(path, Array(text.utf8))
      if saveProblem != nil { log(.info("\(path): saved again")) }
      saveProblem = nil
    } catch {
      if saveProblem == nil {
        log(.warning("\(error); the lockout is kept in memory until a save works"))
      }
      saveProblem = "\(error)"
    }
  }
}
