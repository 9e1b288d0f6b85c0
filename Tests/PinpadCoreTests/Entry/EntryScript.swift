import PinpadCore

/// Drives an `EntryMachine` with a keyd-style script (`t/*.t`): whitespace-separated
/// steps, so a test reads like what happens at the keypad.
///
/// - `KP1`, `1`, `ENTER`, `KEY_A`…: press and release a key (`KEY_` is optional; a bare
///   digit is the main-row `KEY_n`). `KP1:1`, `KP1:0`, `KP1:2`: only the press, the
///   release or an autorepeat.
/// - `+0.020`: time passes (no tick; the next input catches up). `@5`: the time is now
///   5 s after the start.
/// - `tick`: a tick now. `wait`: time jumps to `nextDeadline` and ticks there.
/// - `granted`, `denied`, `noresponse`, `undelivered`: a verdict. `dropped`: SYN_DROPPED.
struct EntryScript {
  static let start = Instant(nanoseconds: 1_000 * 1_000_000_000)

  var machine: EntryMachine
  var now = EntryScript.start
  /// Every action since the start, as `trace` writes them.
  private(set) var log: [String] = []

  init(
    _ rules: EntryConfig = .testing(), lockout: LockoutConfig = .testing(),
    state: LockoutState = LockoutState()
  ) {
    machine = EntryMachine(rules: rules, lockout: lockout, state: state)
  }

  /// Runs the steps and returns what they did, as `trace` writes it.
  @discardableResult
  mutating func run(_ script: String) -> String {
    var done: [String] = []
    for step in script.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      done += perform(String(step))
    }
    log += done
    return done.joined(separator: " ")
  }

  /// The codes submitted since the start.
  var codes: [String] {
    log.compactMap { $0.hasPrefix("submit:") ? String($0.dropFirst("submit:".count)) : nil }
  }

  /// Seconds since the start.
  func at(_ seconds: String) -> Instant { EntryScript.start + .nanoseconds(nanoseconds(seconds)) }

  mutating func reconfigure(_ rules: EntryConfig, lockout: LockoutConfig = .testing()) -> String {
    let actions = machine.reconfigure(rules: rules, lockout: lockout, now: now)
    let done = actions.map(trace)
    log += done
    return done.joined(separator: " ")
  }

  private mutating func perform(_ step: String) -> [String] {
    let input: EntryInput
    switch step {
    case "tick": input = .tick
    case "wait":
      guard let deadline = machine.nextDeadline else { return [] }
      now = max(now, deadline)
      input = .tick
    case "granted": input = .verdict(.granted)
    case "denied": input = .verdict(.denied)
    case "noresponse": input = .verdict(.noResponse)
    case "undelivered": input = .verdict(.undelivered)
    case "dropped": input = .eventsDropped
    case "cardsubmitted": input = .cardSubmitted
    case "clear": input = .clear
    case "timedout": input = .timedOut
    default:
      if step.hasPrefix("+") {
        now = now + .nanoseconds(nanoseconds(String(step.dropFirst())))
        return []
      }
      if step.hasPrefix("@") {
        now = at(String(step.dropFirst()))
        return []
      }
      let parts = step.split(separator: ":")
      let code = key(String(parts[0]))
      if parts.count == 2 {
        return machine.handle(.key(code, value: Int32(parts[1])!), now: now).map(trace)
      }
      return
        (machine.handle(.key(code, value: 1), now: now)
        + machine.handle(.key(code, value: 0), now: now)).map(trace)
    }
    return machine.handle(input, now: now).map(trace)
  }
}

/// A key by its kernel name, with or without `KEY_`; a bare digit is `KEY_n`.
func key(_ name: String) -> KeyCode {
  if let code = KeyCode(name: name) ?? KeyCode(name: "KEY_" + name) { return code }
  fatalError("no key named \(name)")
}

/// Decimal seconds ("4.995") as exact nanoseconds, so deadlines can be hit exactly.
func nanoseconds(_ seconds: String) -> Int64 {
  let parts = seconds.split(separator: ".", omittingEmptySubsequences: false)
  var ns = Int64(parts[0].isEmpty ? "0" : parts[0])! * 1_000_000_000
  if parts.count == 2 {
    let digits = String(parts[1].prefix(9))
    ns += Int64(digits + String(repeating: "0", count: 9 - digits.count))!
  }
  return ns
}

/// One action in words: `started:1`, `submit:1234`, `!tooShort`, `lockout:30`, `screen`.
func trace(_ action: EntryAction) -> String {
  switch action {
  case .entry(let event, let length): return "\(event):\(length)"
  case .submit(let digits): return "submit:" + string(digits)
  case .feedback(let feedback): return "!\(feedback)"
  case .lockout(let seconds): return "lockout:\(seconds)"
  case .screenChanged: return "screen"
  }
}

func string(_ digits: SecretDigits) -> String {
  digits.withASCII { String(decoding: $0, as: UTF8.self) }
}

extension EntryConfig {
  /// The defaults with bursts off, so keys act at once; `edit` changes the rest.
  static func testing(_ edit: (inout EntryConfig) -> Void = { _ in }) -> EntryConfig {
    var rules = EntryConfig()
    rules.burstInterval = .zero
    edit(&rules)
    return rules
  }
}

extension LockoutConfig {
  static func testing(
    maxFailures: Int = 3, lockout: Duration = .seconds(30), lockoutMax: Duration = .seconds(900)
  ) -> LockoutConfig {
    var config = LockoutConfig()
    config.maxFailures = maxFailures
    config.lockout = lockout
    config.lockoutMax = lockoutMax
    return config
  }
}

/// `AllowedDigits=` as a string of digits.
func digitSet(_ digits: String) -> Set<UInt8> {
  Set(digits.map { UInt8(String($0))! })
}
