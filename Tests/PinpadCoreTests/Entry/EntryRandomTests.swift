import PinpadCore
import Testing

/// A small, fast, seeded generator (SplitMix64), so every run sees the same inputs.
struct SplitMix64 {
  private var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// 0..<n
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

  /// True `percent` times out of a hundred.
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// A set of rules to fuzz: the rules in force at the start, others a reload may bring.
struct FuzzRules: Sendable, CustomTestStringConvertible {
  var name: String
  var rules: [EntryConfig]
  var lockout: LockoutConfig
  var testDescription: String { name }
}

private let fuzzRuleSets: [FuzzRules] = [
  FuzzRules(
    name: "defaults",
    rules: [EntryConfig(), EntryConfig.testing { $0.burstInterval = .milliseconds(15) }],
    lockout: .testing(maxFailures: 5)),
  FuzzRules(
    name: "fixed 4 of 1234, bursts rejected, digits shown",
    rules: [
      .testing {
        $0.length = 4
        $0.allowedDigits = digitSet("1234")
        $0.bursts = .reject
        $0.burstInterval = .milliseconds(15)
        $0.mask = .digits
      },
      .testing {
        $0.length = 5
        $0.allowedDigits = digitSet("123")
      },
    ],
    lockout: .testing(maxFailures: 2, lockout: .seconds(1), lockoutMax: .seconds(5))),
  FuzzRules(
    name: "fixed 6, short timeouts, short reveal, no bursts",
    rules: [
      .testing {
        $0.length = 6
        $0.interKeyTimeout = .seconds(2)
        $0.totalTimeout = .seconds(5)
        $0.reveal = .seconds(1)
      }
    ],
    lockout: .testing(maxFailures: 3, lockout: .milliseconds(1500), lockoutMax: .seconds(20))),
  FuzzRules(
    name: "variable 1 to 3, slow bursts, fixed mask",
    rules: [
      .testing {
        $0.minLength = 1
        $0.maxLength = 3
        $0.burstInterval = .milliseconds(50)
        $0.mask = .fixed
      },
      .testing {
        $0.minLength = 2
        $0.maxLength = 2
        $0.allowedDigits = digitSet("0289")
      },
    ],
    lockout: .testing(maxFailures: 2, lockout: .seconds(1), lockoutMax: .seconds(5))),
  FuzzRules(
    name: "variable 6 to 40, long timeouts",
    rules: [
      .testing {
        $0.minLength = 6
        $0.maxLength = 40
        $0.interKeyTimeout = .seconds(60)
        $0.totalTimeout = .seconds(600)
        $0.allowedDigits = digitSet("13579")
      }
    ],
    lockout: .testing(maxFailures: 4)),
]

private let digitKeys: [KeyCode] = (0...9).flatMap { [KeyCode.mainRow($0), KeyCode.keypad($0)] }
private let controlKeys: [KeyCode] = [.enter, .kpEnter, .backspace, .esc, .kpAsterisk, .kpDot]
private let otherKeys: [KeyCode] = [.numLock, key("KEY_A"), key("KPPLUS"), key("KEY_SPACE")]

/// Runs `steps` random inputs and checks the invariants after each one.
private struct Fuzzer {
  var random: SplitMix64
  let ruleSets: [EntryConfig]
  let lockoutRules: LockoutConfig
  var rules: EntryConfig
  var machine: EntryMachine
  var now = EntryScript.start
  /// The entry's length as its events tell it.
  var announced = 0
  /// The last lockout since the last grant.
  var lastLockout = 0
  var submits = 0
  var lockouts = 0
  var timeouts = 0
  var rejectedBursts = 0

  init(seed: UInt64, set: FuzzRules) {
    random = SplitMix64(seed: seed)
    ruleSets = set.rules
    lockoutRules = set.lockout
    rules = set.rules[0]
    machine = EntryMachine(rules: rules, lockout: lockoutRules)
  }

  mutating func step() {
    let before = rules
    var isTick = false
    let actions: [EntryAction]
    let roll = random.below(100)
    switch roll {
    case 0..<50:
      let key: KeyCode
      switch random.below(20) {
      case 0..<10:
        // Mostly allowed digits, so codes get finished under strict rules too.
        let digit = random.pick(rules.allowedDigits.sorted())
        key = random.chance(50) ? .mainRow(digit) : .keypad(digit)
      case 10..<14: key = random.pick(digitKeys)
      case 14..<18: key = random.pick(controlKeys)
      default: key = random.pick(otherKeys)
      }
      let value: Int32 = random.chance(85) ? 1 : random.pick([0, 2])
      actions = machine.handle(.key(key, value: value), now: now)
    case 50..<70:
      switch random.below(20) {
      case 0..<10: now = now + .milliseconds(Int64(random.below(30)))
      case 10..<18: now = now + .milliseconds(Int64(100 + random.below(3_000)))
      default: now = now + .seconds(Int64(3 + random.below(40)))
      }
      return
    case 70..<85:
      if let deadline = machine.nextDeadline, deadline > now { now = deadline }
      isTick = true
      actions = machine.handle(.tick, now: now)
    case 85..<97:
      let outcome: VerdictOutcome = random.pick([
        .granted, .denied, .denied, .denied, .noResponse, .undelivered,
      ])
      if outcome == .granted { lastLockout = 0 }
      actions = machine.handle(.verdict(outcome), now: now)
    case 97..<99:
      actions = machine.handle(.eventsDropped, now: now)
    default:
      rules = random.pick(ruleSets)
      actions = machine.reconfigure(rules: rules, lockout: lockoutRules, now: now)
    }
    check(actions, rulesBefore: before, isTick: isTick)
  }

  mutating func check(_ actions: [EntryAction], rulesBefore: EntryConfig, isTick: Bool) {
    for action in actions {
      switch action {
      case .entry(let event, let length):
        switch event {
        case .started: #expect(announced == 0 && length == 1)
        case .changed: #expect(length == announced + 1)
        case .deleted: #expect(length == announced - 1)
        case .cleared: #expect(announced > 0 && length == 0)
        case .timeout:
          #expect(announced > 0 && length == 0)
          timeouts += 1
        case .rejected: #expect(length == announced)
        case .cardRead:
          Issue.record("an entry machine announced a card read (only the session does)")
        }
        announced = length
      case .submit(let digits):
        submits += 1
        // The pending keys of a reload settle under the rules before it.
        let candidates = [rulesBefore, rules]
        #expect(candidates.contains { fits(digits, $0) }, "submitted \(digits.count) digits")
        // A fixed-length code's last digit is not announced: the submit is its event.
        #expect(digits.count == announced || digits.count == announced + 1)
        announced = 0
        digits.wipe()
      case .feedback(let feedback):
        if feedback == .burstRejected { rejectedBursts += 1 }
      case .lockout(let seconds):
        lockouts += 1
        #expect(seconds >= lastLockout, "a lockout shrank without a grant")
        #expect(Double(seconds) <= lockoutRules.lockoutMax.seconds.rounded(.up))
        lastLockout = seconds
      case .screenChanged:
        break
      }
    }
    #expect(announced == machine.length, "events say \(announced), machine \(machine.length)")
    #expect(machine.length <= min(rules.capacity, SecretDigits.capacity))
    if let deadline = machine.nextDeadline {
      #expect(deadline > now, "deadline in the past after \(isTick ? "a tick" : "an input")")
    }
    switch machine.phase {
    case .idle:
      #expect(machine.length == 0)
      #expect(machine.lockoutState.lockedUntil == nil)
    case .entering:
      #expect(machine.length > 0)
    case .checking:
      #expect(machine.length == 0)
    case .locked(let until):
      #expect(machine.length == 0)
      #expect(machine.lockoutState.lockedUntil == until)
      #expect(until > now)
    }
    #expect((0...lockoutRules.maxFailures).contains(machine.attemptsLeft))
    if rules.mask == .digits { #expect(!machine.isRevealed) }
    if let shown = machine.visibleDigits() {
      #expect(rules.mask == .digits || machine.isRevealed)
      #expect(shown.count == machine.length)
      #expect(shown.allSatisfy { rules.allowedDigits.contains($0) })
    } else {
      #expect(rules.mask != .digits && !machine.isRevealed)
    }
  }

  func fits(_ digits: SecretDigits, _ rules: EntryConfig) -> Bool {
    if let length = rules.length {
      guard digits.count == length else { return false }
    } else {
      guard digits.count >= rules.minLength && digits.count <= rules.maxLength else {
        return false
      }
    }
    return (0..<digits.count).allSatisfy { rules.allowedDigits.contains(digits[$0]) }
  }
}

@Suite("Entry fuzzing")
struct EntryRandomTests {
  @Test("random keys, times, ticks and verdicts keep the invariants", arguments: fuzzRuleSets)
  func fuzz(_ set: FuzzRules) {
    var totals = (submits: 0, lockouts: 0, timeouts: 0, bursts: 0)
    for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF, 20_261_130] {
      var fuzzer = Fuzzer(seed: seed, set: set)
      for _ in 0..<4_000 { fuzzer.step() }
      totals.submits += fuzzer.submits
      totals.lockouts += fuzzer.lockouts
      totals.timeouts += fuzzer.timeouts
      totals.bursts += fuzzer.rejectedBursts
    }
    // The inputs reach the interesting states, or the invariants prove little.
    #expect(totals.submits >= 10)
    #expect(totals.lockouts > 0)
    #expect(totals.timeouts > 0)
    if set.rules.contains(where: { $0.burstInterval > .zero }) { #expect(totals.bursts > 0) }
  }
}
