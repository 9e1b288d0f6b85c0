/// One keypad's code entry and lockout (pinpadd.conf(5), [Entry] and [Lockout]): a value
/// that turns key presses, verdicts and the passing of time into `EntryAction`s. It does
/// no I/O and reads no clock.
///
/// Presses are first collected into a pending group; a group settles `burstInterval`
/// after its last press (at a `.tick` or when a later press arrives outside the
/// interval). A group of one press is an ordinary key; a longer one is a burst
/// (scanner, autofill), rejected whole under `Bursts=reject` or when it carries a
/// disallowed key. While a group is pending the entry's own deadlines (timeouts,
/// reveal) wait for it to settle: its keys were pressed before them.
///
/// Every handled input first catches up with the deadlines that are due at `now`, in
/// order, so a late `.tick` or a key arriving after a timeout sees the same result as a
/// punctual tick.
///
/// The digits live only in `SecretDigits` buffers that are wiped as soon as the entry
/// ends. Copies of an `EntryMachine` share those buffers: keep one owner.
public struct EntryMachine {
  /// What a press means under the current rules. Digits carry no value here: the
  /// value waits in `pendingDigits` until the group settles.
  private enum KeyRole: Equatable {
    case digit
    case disallowed
    case submit
    case backspace
    case clear
    case reveal
  }

  private struct Press {
    var role: KeyRole
    var at: Instant
  }

  private enum Mode: Equatable {
    case idle
    case entering
    case checking
    /// Invariant: `lockout.lockedUntil != nil` exactly in this mode.
    case locked
  }

  /// The most presses one group may hold; a longer flood is rejected whole when it
  /// settles (no real code plus its control keys is this long).
  private static let maxGroupPresses = 64

  public private(set) var rules: EntryConfig {
    didSet { spans = Spans(rules, lockoutRules) }
  }
  private var lockoutRules: LockoutConfig {
    didSet { spans = Spans(rules, lockoutRules) }
  }
  /// The rules' times in nanoseconds, worked out once (a `Duration`'s are not cheap to
  /// get at: every key asks for them).
  private var spans: Spans

  private struct Spans {
    var interKey: Int64
    var total: Int64
    var burst: Int64
    var lockoutMax: Int64
    init(_ rules: EntryConfig, _ lockout: LockoutConfig) {
      interKey = rules.interKeyTimeout.nanoseconds
      total = rules.totalTimeout.nanoseconds
      burst = rules.burstInterval.nanoseconds
      lockoutMax = lockout.lockoutMax.nanoseconds
    }
  }
  private var lockout: LockoutState
  private var mode: Mode

  /// The entry: the one buffer that holds the typed digits.
  private let digits = SecretDigits()
  /// When the entry's first digit and its last accepted key were pressed.
  private var startedAt = Instant.zero
  private var lastKeyAt = Instant.zero
  /// Set while revealed: when the entry re-masks.
  private var revealUntil: Instant? = nil

  /// The group of presses that has not settled yet, and the digits among them in order.
  private var pending: [Press] = []
  private let pendingDigits = SecretDigits()
  private var pendingOverflow = false

  /// The latest `now` seen; time never runs backwards inside the machine.
  private var clock = Instant(nanoseconds: .min)

  /// A machine for one keypad. A `state` whose `lockedUntil` is set starts `.locked`;
  /// the lock ends at the first input whose `now` has reached it.
  public init(rules: EntryConfig, lockout: LockoutConfig, state: LockoutState = LockoutState()) {
    self.rules = rules
    self.lockoutRules = lockout
    self.spans = Spans(rules, lockout)
    self.lockout = state
    self.mode = state.lockedUntil == nil ? .idle : .locked
  }

  // MARK: - What the owner reads

  public var phase: EntryPhase {
    switch mode {
    case .idle: return .idle
    case .entering: return .entering
    case .checking: return .checking
    case .locked: return .locked(until: lockout.lockedUntil ?? clock)
    }
  }

  /// Digits typed so far (0 while idle, checking or locked).
  public var length: Int { digits.count }

  public var isRevealed: Bool { revealUntil != nil }

  /// The digits to draw: only while revealed or under `Mask=digits`, else nil.
  /// The caller gets a copy and should not keep it past drawing.
  public func visibleDigits() -> [UInt8]? {
    guard rules.mask == .digits || isRevealed else { return nil }
    var shown: [UInt8] = []
    shown.reserveCapacity(digits.count)
    for i in 0..<digits.count { shown.append(digits[i]) }
    return shown
  }

  /// The lockout bookkeeping to persist; give it back to `init(state:)` after a restart.
  public var lockoutState: LockoutState { lockout }

  /// Denials left before the keypad locks.
  public var attemptsLeft: Int { max(0, lockoutRules.maxFailures - lockout.failures) }

  /// The earliest moment a `.tick` is needed, nil when nothing is waiting on time.
  public var nextDeadline: Instant? { nextDue()?.at }

  // MARK: - Inputs

  public mutating func handle(_ input: EntryInput, now: Instant) -> [EntryAction] {
    var actions: [EntryAction] = []
    handle(input, now: now, into: &actions)
    return actions
  }

  /// `handle(_:now:)` appending to `actions` (the caller's buffer, reused from key to
  /// key, so a key press allocates no array).
  public mutating func handle(
    _ input: EntryInput, now: Instant, into actions: inout [EntryAction]
  ) {
    var out = Output(actions: actions)
    actions = []
    defer { actions = out.finish() }
    let wasChecking = mode == .checking
    let now = advanceClock(to: now)
    catchUp(to: now, &out)
    switch input {
    case .tick:
      break
    case .key(let code, let value):
      press(code, value: value, at: now, &out)
    case .eventsDropped:
      dropEntry(&out)
    case .cardSubmitted:
      cardSubmitted(&out)
    case .clear:
      dropEntry(&out)
    case .timedOut:
      guard mode == .idle || mode == .entering else { break }
      pending.removeAll(keepingCapacity: true)
      pendingOverflow = false
      pendingDigits.wipe()
      if mode == .entering { endEntry(&out) }
      out.append(.entry(.timeout, length: 0))
    case .verdict(let outcome):
      // Only the code that was being checked when the verdict came can be judged.
      if wasChecking && mode == .checking { verdict(outcome, at: now, &out) }
    }
  }

  /// SIGHUP reload. Pending presses settle under the old rules first; then an entry that
  /// is still valid under the new rules (fits, only allowed digits) is kept, anything
  /// else is wiped with a `cleared` event. A lockout in force keeps running.
  public mutating func reconfigure(
    rules newRules: EntryConfig, lockout newLockout: LockoutConfig, now: Instant
  )
    -> [EntryAction]
  {
    var out = Output()
    let now = advanceClock(to: now)
    catchUp(to: now, &out)
    if !pending.isEmpty { settle(at: now, &out) }
    if newRules != rules || newLockout != lockoutRules { out.screenChanged = true }
    rules = newRules
    lockoutRules = newLockout
    if mode == .entering {
      if fitsRules() {
        if rules.mask == .digits || rules.reveal <= .zero { revealUntil = nil }
      } else {
        endEntry(&out)
        out.append(.entry(.cleared, length: 0))
      }
    }
    catchUp(to: now, &out)
    return out.finish()
  }

  // MARK: - Time

  private enum Deadline {
    case settle, interKey, total, reveal, unlock
  }

  private mutating func advanceClock(to now: Instant) -> Instant {
    if now > clock { clock = now }
    return clock
  }

  /// The next thing that is waiting on time. While a group is pending only its settling
  /// counts: the entry's deadlines are looked at again once its keys are applied.
  private func nextDue() -> (at: Instant, what: Deadline)? {
    if let last = pending.last {
      return (settleTime(after: last.at), .settle)
    }
    switch mode {
    case .idle, .checking:
      return nil
    case .locked:
      return lockout.lockedUntil.map { ($0, .unlock) }
    case .entering:
      var due: (at: Instant, what: Deadline)? = nil
      func consider(_ at: Instant, _ what: Deadline) {
        if due == nil || at < due!.at { due = (at, what) }
      }
      if spans.interKey > 0 { consider(lastKeyAt.adding(nanoseconds: spans.interKey), .interKey) }
      if spans.total > 0 { consider(startedAt.adding(nanoseconds: spans.total), .total) }
      if let revealUntil { consider(revealUntil, .reveal) }
      return due
    }
  }

  private func settleTime(after press: Instant) -> Instant {
    spans.burst > 0 ? press.adding(nanoseconds: spans.burst) : press
  }

  /// Acts on every deadline that is due at `now`, earliest first.
  private mutating func catchUp(to now: Instant, _ out: inout Output) {
    clampLockout(now: now)
    while let due = nextDue(), due.at <= now {
      switch due.what {
      case .settle:
        settle(at: due.at, &out)
      case .interKey, .total:
        endEntry(&out)
        out.append(.entry(.timeout, length: 0))
      case .reveal:
        revealUntil = nil
        out.screenChanged = true
      case .unlock:
        lockout.lockedUntil = nil
        mode = .idle
        out.screenChanged = true
      }
    }
  }

  /// A lock can never run longer than LockoutMaxSec from now: this bounds a lock restored
  /// from a stale state file or kept over a reload that lowered the maximum.
  private mutating func clampLockout(now: Instant) {
    guard mode == .locked, let until = lockout.lockedUntil else { return }
    let longest = now.adding(nanoseconds: spans.lockoutMax)
    if until > longest { lockout.lockedUntil = longest }
  }

  // MARK: - Keys

  private func role(of code: KeyCode) -> KeyRole {
    if let digit = code.digit {
      return rules.allowedDigits.contains(digit) ? .digit : .disallowed
    }
    if rules.submitKeys.contains(code) { return .submit }
    if rules.backspaceKeys.contains(code) { return .backspace }
    if rules.clearKeys.contains(code) { return .clear }
    if rules.revealKeys.contains(code) { return .reveal }
    return .disallowed
  }

  private mutating func press(_ code: KeyCode, value: Int32, at now: Instant, _ out: inout Output) {
    guard value == 1, code != .numLock else { return }
    switch mode {
    case .checking:
      if code.digit != nil { out.append(.feedback(.busy)) }
      return
    case .locked:
      if code.digit != nil {
        out.append(.feedback(.locked))
        out.append(.entry(.rejected, length: 0))
      }
      return
    case .idle, .entering:
      break
    }
    let role = role(of: code)
    if pending.count >= EntryMachine.maxGroupPresses || (role == .digit && pendingDigits.isFull) {
      // A flood: the group will be rejected whole, so its extra presses need no room,
      // but they keep it open.
      pendingOverflow = true
      pending[pending.count - 1].at = now
    } else {
      if role == .digit { pendingDigits.append(code.digit!) }
      pending.append(Press(role: role, at: now))
    }
    if settleTime(after: now) <= now { settle(at: now, &out) }
  }

  /// Applies or rejects the pending group, then forgets it.
  private mutating func settle(at time: Instant, _ out: inout Output) {
    let overflow = pendingOverflow
    pendingOverflow = false
    // Emptied when settled, its storage kept for the next group (nothing below reads
    // `pending`).
    defer {
      pending.removeAll(keepingCapacity: true)
      pendingDigits.wipe()
    }
    guard !pending.isEmpty else { return }

    let isBurst = pending.count >= 2 || overflow
    if isBurst
      && (rules.bursts == .reject || overflow || pending.contains { $0.role == .disallowed })
    {
      maskForKeyPress(&out)
      out.append(.entry(.rejected, length: digits.count))
      out.append(.feedback(.burstRejected))
      return
    }
    var nextDigit = 0
    for press in pending {
      var digit: UInt8? = nil
      if press.role == .digit {
        digit = pendingDigits[nextDigit]
        nextDigit += 1
      }
      // Once a code is submitted the rest of its burst is ignored.
      guard mode == .idle || mode == .entering else { continue }
      apply(press.role, digit: digit, at: press.at, &out)
    }
  }

  /// The next key press of any kind re-masks a revealed entry.
  /// Returns true when it did.
  @discardableResult
  private mutating func maskForKeyPress(_ out: inout Output) -> Bool {
    guard revealUntil != nil else { return false }
    revealUntil = nil
    out.screenChanged = true
    return true
  }

  private mutating func apply(
    _ role: KeyRole, digit: UInt8?, at time: Instant, _ out: inout Output
  ) {
    if maskForKeyPress(&out) && role == .reveal {
      // The reveal key toggled the reveal off.
      lastKeyAt = time
      return
    }
    switch role {
    case .digit:
      addDigit(digit!, at: time, &out)
    case .disallowed:
      out.append(.entry(.rejected, length: digits.count))
      out.append(.feedback(.notAllowed))
    case .submit:
      guard !digits.isEmpty else { return }
      if let fixed = rules.length {
        if digits.count >= fixed { submit(&out) } else { tooShort(at: time, &out) }
      } else if digits.count >= rules.minLength {
        submit(&out)
      } else {
        tooShort(at: time, &out)
      }
    case .backspace:
      guard !digits.isEmpty else { return }
      digits.removeLast()
      out.screenChanged = true
      if digits.isEmpty {
        endEntry(&out)
        out.append(.entry(.deleted, length: 0))
      } else {
        lastKeyAt = time
        out.append(.entry(.deleted, length: digits.count))
      }
    case .clear:
      guard !digits.isEmpty else { return }
      endEntry(&out)
      out.append(.entry(.cleared, length: 0))
    case .reveal:
      guard !digits.isEmpty, rules.mask != .digits, rules.reveal > .zero else { return }
      revealUntil = time + rules.reveal
      lastKeyAt = time
      out.screenChanged = true
    }
  }

  private var capacity: Int { min(rules.capacity, SecretDigits.capacity) }

  private mutating func addDigit(_ digit: UInt8, at time: Instant, _ out: inout Output) {
    guard digits.count < capacity else {
      // Only reachable with variable length: a fixed-length entry is submitted when full.
      lastKeyAt = time
      out.append(.feedback(.full))
      return
    }
    digits.append(digit)
    lastKeyAt = time
    out.screenChanged = true
    if digits.count == 1 {
      mode = .entering
      startedAt = time
    }
    if let fixed = rules.length, digits.count >= fixed {
      submit(&out)
      return
    }
    out.append(.entry(digits.count == 1 ? .started : .changed, length: digits.count))
  }

  private mutating func tooShort(at time: Instant, _ out: inout Output) {
    lastKeyAt = time
    out.append(.feedback(.tooShort))
  }

  /// Hands the code over in a buffer of its own and wipes the entry.
  private mutating func submit(_ out: inout Output) {
    let code = digits.take()
    revealUntil = nil
    mode = .checking
    out.append(.submit(code))
    out.screenChanged = true
  }

  /// Wipes the entry and returns to idle.
  private mutating func endEntry(_ out: inout Output) {
    digits.wipe()
    revealUntil = nil
    mode = .idle
    out.screenChanged = true
  }

  /// Would the current entry be valid under `rules`?
  private func fitsRules() -> Bool {
    if let fixed = rules.length {
      // An entry as long as the code would have been submitted already.
      guard digits.count < fixed else { return false }
    } else {
      guard digits.count <= rules.maxLength else { return false }
    }
    guard digits.count <= SecretDigits.capacity else { return false }
    for i in 0..<digits.count where !rules.allowedDigits.contains(digits[i]) { return false }
    return true
  }

  // MARK: - Other inputs

  private mutating func dropEntry(_ out: inout Output) {
    pending.removeAll(keepingCapacity: true)
    pendingOverflow = false
    pendingDigits.wipe()
    guard mode == .entering else { return }
    endEntry(&out)
    out.append(.entry(.cleared, length: 0))
  }

  private mutating func cardSubmitted(_ out: inout Output) {
    switch mode {
    case .checking:
      out.append(.feedback(.busy))
    case .locked:
      out.append(.feedback(.locked))
      out.append(.entry(.rejected, length: 0))
    case .idle, .entering:
      dropEntry(&out)
      mode = .checking
      out.append(.submit(SecretDigits()))
      out.screenChanged = true
    }
  }

  private mutating func verdict(_ outcome: VerdictOutcome, at now: Instant, _ out: inout Output) {
    mode = .idle
    out.screenChanged = true
    switch outcome {
    case .granted:
      lockout.failures = 0
      lockout.level = 0
    case .denied:
      lockout.failures = lockout.failures.saturatingAdd(1)
      guard lockoutRules.maxFailures > 0, lockout.failures >= lockoutRules.maxFailures else {
        return
      }
      lockout.failures = 0
      lockout.level = lockout.level < Int.max ? max(lockout.level, 0) + 1 : lockout.level
      let nanoseconds = lockoutNanoseconds(level: lockout.level)
      guard nanoseconds > 0 else { return }
      lockout.lockedUntil = now + .nanoseconds(nanoseconds)
      mode = .locked
      let seconds = nanoseconds / 1_000_000_000 + (nanoseconds % 1_000_000_000 == 0 ? 0 : 1)
      out.append(.lockout(seconds: Int(seconds)))
    case .noResponse, .undelivered:
      break
    }
  }

  /// LockoutSec × 2^(level-1), capped at LockoutMaxSec, in nanoseconds.
  private func lockoutNanoseconds(level: Int) -> Int64 {
    lockoutRules.lockoutLength(level: level).nanoseconds
  }
}

// MARK: - Output

extension EntryMachine {
  /// The actions of one input, with at most one `screenChanged`, last.
  private struct Output {
    var actions: [EntryAction] = []
    var screenChanged = false
    init(actions: [EntryAction] = []) { self.actions = actions }
    mutating func append(_ action: EntryAction) {
      if case .screenChanged = action {
        screenChanged = true
      } else {
        actions.append(action)
      }
    }
    mutating func finish() -> [EntryAction] {
      if screenChanged { actions.append(.screenChanged) }
      return actions
    }
  }
}

// MARK: - Never showing digits

extension EntryMachine: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// Phase and length only: never a digit.
  public var description: String {
    let name: String
    switch mode {
    case .idle: name = "idle"
    case .entering: name = "entering"
    case .checking: name = "checking"
    case .locked: name = "locked"
    }
    return "EntryMachine(phase: \(name), length: \(length))"
  }
  public var debugDescription: String { description }
  public var customMirror: Mirror {
    Mirror(self, children: ["phase": phase, "length": length], displayStyle: .struct)
  }
}
