/// Lockout state kept in `STATE_DIR/lockout` so a restart does not reset a lockout
/// (pinpadd(8), OPTIONS, --state-dir). One line per keypad:
/// `NAME FAILURES LEVEL LOCKED_UNTIL_UNIX_MS` (0 when not locked), with `%` and spaces in
/// NAME written `%25` and `%20` (a `[Keypad NAME]` may hold spaces). Wall-clock time,
/// because the monotonic clock restarts with the machine.
public struct LockoutStore {
  public let path: String

  public init(directory: String) { path = directory + "/lockout" }

  /// Parses the file's text; `nowMono`/`nowWallMs` convert wall to monotonic time.
  /// A line that does not parse makes that keypad (or, when no name can be read, every
  /// keypad via "*") locked for `conservative`, never unlocked; `guessed` names those
  /// keypads, whose lines are written back only while that lock lasts (a garbled name
  /// must not become a keypad of its own in the file for ever). Numbers are read whole
  /// or not at all, and times far ahead saturate instead of overflowing.
  public static func parse(
    _ text: String, nowMono: Instant, nowWallMs: Int64, conservative: Duration
  ) -> (states: [String: LockoutState], problems: [String], guessed: Set<String>) {
    var states: [String: LockoutState] = [:]
    var problems: [String] = []
    var guessed = Set<String>()
    // Fields are split at space scalars: as Characters, a space after a prepending mark
    // (U+0600...) is part of the mark's grapheme and would not end the name.
    let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
    for (n, line) in lines.enumerated() {
      if line.isEmpty { continue }
      let fields = line.split(separator: " ").map { Substring($0) }
      guard fields.count == 4, let name = decode(fields[0]), let failures = Int(fields[1]),
        let level = Int(fields[2]),
        let until = Int64(fields[3]), failures >= 0, level >= 0, until >= 0
      else {
        let name = fields.first.flatMap(decode) ?? "*"
        problems.append("line \(n + 1) is not NAME FAILURES LEVEL UNTIL")
        states[name] = LockoutState(failures: 0, level: 1, lockedUntil: nowMono + conservative)
        guessed.insert(name)
        continue
      }
      var state = LockoutState(failures: failures, level: level)
      if until > nowWallMs {
        let left = until.saturatingSubtract(nowWallMs).saturatingMultiply(1_000_000)
        state.lockedUntil = nowMono + .nanoseconds(left)
      }
      states[name] = state
      guessed.remove(name)
    }
    return (states, problems, guessed)
  }

  public static func render(
    _ states: [String: LockoutState], nowMono: Instant, nowWallMs: Int64
  ) -> String {
    var out = ""
    for name in states.keys.sorted() {
      let state = states[name]!
      var until: Int64 = 0
      if let locked = state.lockedUntil, locked > nowMono {
        until = nowWallMs.saturatingAdd((locked - nowMono).nanoseconds / 1_000_000)
      }
      if state.failures == 0 && state.level == 0 && until == 0 { continue }
      out += "\(encode(name)) \(state.failures) \(state.level) \(until)\n"
    }
    return out
  }

  /// NAME as one field: `%` → `%25`, space → `%20`.
  static func encode(_ name: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
      switch scalar {
      case "%": out.append(contentsOf: "%25".unicodeScalars)
      case " ": out.append(contentsOf: "%20".unicodeScalars)
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  /// The inverse of `encode`; nil for a `%` not followed by `25` or `20`.
  static func decode(_ field: Substring) -> String? {
    var out = String.UnicodeScalarView()
    var rest = field.unicodeScalars[...]
    while let percent = rest.firstIndex(of: "%") {
      out.append(contentsOf: rest[..<percent])
      let escape = String(String.UnicodeScalarView(rest[percent...].prefix(3)))
      switch escape {
      case "%25": out.append("%")
      case "%20": out.append(" ")
      default: return nil
      }
      rest = rest[rest.index(percent, offsetBy: 3)...]
    }
    out.append(contentsOf: rest)
    return String(out)
  }
}
