import PinpadCore
import PinpadSystem

/// Lockout state kept in `STATE_DIR/lockout` so a restart does not reset a lockout
/// (SPEC §3). One line per keypad: `NAME FAILURES LEVEL LOCKED_UNTIL_UNIX_MS` (0 when
/// not locked). Wall-clock time, because the monotonic clock restarts with the machine.
public struct LockoutStore {
  public let path: String

  public init(directory: String) { path = directory + "/lockout" }

  /// Parses the file's text; `nowMono`/`nowWallMs` convert wall to monotonic time.
  /// A line that does not parse makes that keypad (or, when no name can be read, every
  /// keypad via "*") locked for `conservative`, never unlocked.
  public static func parse(
    _ text: String, nowMono: Instant, nowWallMs: Int64, conservative: Duration
  ) -> (states: [String: LockoutState], problems: [String]) {
    var states: [String: LockoutState] = [:]
    var problems: [String] = []
    for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if line.isEmpty { continue }
      let fields = line.split(separator: " ")
      guard fields.count == 4, let failures = Int(fields[1]), let level = Int(fields[2]),
        let until = Int64(fields[3]), failures >= 0, level >= 0, until >= 0
      else {
        let name = fields.first.map(String.init) ?? "*"
        problems.append("line \(n + 1) is not NAME FAILURES LEVEL UNTIL")
        states[name] = LockoutState(failures: 0, level: 1, lockedUntil: nowMono + conservative)
        continue
      }
      var state = LockoutState(failures: failures, level: level)
      if until > nowWallMs {
        state.lockedUntil = nowMono + .milliseconds(until - nowWallMs)
      }
      states[String(fields[0])] = state
    }
    return (states, problems)
  }

  public static func render(
    _ states: [String: LockoutState], nowMono: Instant, nowWallMs: Int64
  ) -> String {
    var out = ""
    for name in states.keys.sorted() {
      let state = states[name]!
      var until: Int64 = 0
      if let locked = state.lockedUntil, locked > nowMono {
        until = nowWallMs + (locked - nowMono).nanoseconds / 1_000_000
      }
      if state.failures == 0 && state.level == 0 && until == 0 { continue }
      out += "\(name) \(state.failures) \(state.level) \(until)\n"
    }
    return out
  }
}
