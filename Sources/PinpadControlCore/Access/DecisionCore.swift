import PinpadCore

/// The controller's decision, as a value (docs/protocol.md, "Codes file: matching" and
/// "Socket: denial reasons"): what `pinpadctl serve`, its fleet controller over MQTT
/// and a door deciding from its replica all ask. It reads no file and no clock and
/// runs no crypt(3) itself: the clock, the hash checks and the zeroing of the secrets
/// come in as functions, the people (`People`) with each attempt, and what must be
/// done comes back as effects.
///
/// A decision takes two steps, because the access log has a say in it:
/// 1. `decide` returns the decision and the effect `.record` (commit it, spending a
///    use of a `uses=N` grant). Denied unchecked (`locked`) while the lockout is in
///    force; else the tags and the rules order the lines (`CodesLookup`,
///    `AccessDecision`) and `firstMatch` runs the crypt(3) checks.
/// 2. `settle` takes what recording gave (`Recorded`: kept, refused `used_up`, failed)
///    and returns the verdict to send, with the lockout's change (`.saveLockout`) and
///    the lines to log (`.say`).
public struct DecisionCore {
  /// The crypt(3) checks: the entry index of the first candidate (in the order given)
  /// whose checks all pass with `code` and/or `card`, nil when none does.
  public typealias FirstMatch = (
    _ candidates: [CodesLookup.Candidate], _ entries: [CodesFile.Entry],
    _ code: UnsafeBufferPointer<UInt8>?, _ card: UnsafeBufferPointer<UInt8>?
  ) -> Int?

  public enum Effect: Equatable, Sendable {
    /// Commit the decision to the access log before its verdict is sent (a grant with
    /// `uses` spends one).
    case record(Record)
    /// The lockout's per-place states changed: keep them (they survive a restart).
    case saveLockout([String: LockoutState])
    /// A line for the controller's log (never a code or card).
    case say(LogLine)
  }

  /// One decision as the access log keeps it.
  public struct Record: Equatable, Sendable {
    /// Milliseconds since the epoch.
    public var at: Int64
    public var device: String?
    public var keypad: String
    public var attempt: String
    public var decision: Decision

    public init(at: Int64, device: String?, keypad: String, attempt: String, decision: Decision) {
      self.at = at
      self.device = device
      self.keypad = keypad
      self.attempt = attempt
      self.decision = decision
    }
  }

  /// What recording the decision gave.
  public enum Recorded: Equatable, Sendable {
    /// Committed as decided (or left out of a flood of `locked` denials).
    case kept
    /// The log denied the grant (`used_up`: the last use was spent).
    case denied(DenialReason)
    /// It could not be committed: denied `unavailable`.
    case failed
  }

  /// A decision waiting for its recording.
  public struct Pending: Equatable, Sendable {
    public var decision: Decision
    /// The lockout place, and whether the secrets were checked (so the verdict counts
    /// towards the lockout).
    public var place: String
    public var checked: Bool
    public var effects: [Effect]
  }

  public private(set) var lockout: ControllerLockout
  public let zone: LocalZone
  private let clock: () -> Moment
  private let firstMatch: FirstMatch
  private let zero: (UnsafeMutableRawPointer, Int) -> Void
  /// Whether the global bound was in force at the last attempt (to say when it starts).
  private var globalLocked = false

  public init(
    lockout: ControllerLockout, zone: LocalZone, clock: @escaping () -> Moment,
    firstMatch: @escaping FirstMatch,
    zero: @escaping (UnsafeMutableRawPointer, Int) -> Void = DecisionCore.plainZero
  ) {
    self.lockout = lockout
    self.zone = zone
    self.clock = clock
    self.firstMatch = firstMatch
    self.zero = zero
  }

  /// Zeroes with plain stores (the shell gives explicit_bzero(3), which the optimiser
  /// cannot drop).
  public static func plainZero(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
    pointer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
  }

  /// Step 1: the decision for `attempt` among `people`, and what to record. Zeroes the
  /// attempt's code and card before returning.
  public mutating func decide(_ attempt: Attempt, people: People) -> Pending {
    defer {
      for buffer in [attempt.code, attempt.card] {
        if let buffer, let base = buffer.baseAddress { zero(base, buffer.count) }
      }
    }
    let now = clock()
    func pending(_ decision: Decision, checked: Bool, _ said: [Effect] = []) -> Pending {
      let record = Record(
        at: now.wallMs, device: attempt.device, keypad: attempt.keypad, attempt: attempt.id,
        decision: decision)
      return Pending(
        decision: decision, place: attempt.place, checked: checked,
        effects: said + [.record(record)])
    }
    guard attempt.code != nil || attempt.card != nil else {
      return pending(.deny(.unknown), checked: false)
    }
    let admission = lockout.admit(attempt.place, now: now.mono)
    let global = admission == .locked(global: true)
    var said: [Effect] = []
    if global, !globalLocked {
      said.append(
        .say(
          .warning(
            "too many denials on all keypads together (over \(lockout.global.burst));"
              + " every code is denied (reason locked) for a while")))
    }
    globalLocked = global
    if case .locked = admission { return pending(.deny(.locked), checked: false, said) }
    return pending(check(attempt, people: people, now: now), checked: true, said)
  }

  /// The line `attempt` matches, under the rules at `now`.
  private func check(_ attempt: Attempt, people: People, now: Moment) -> Decision {
    let entries = people.entries
    let code = attempt.code.map { UnsafeBufferPointer($0) }
    let card = attempt.card.map { UnsafeBufferPointer($0) }
    let epoch = now.epochSeconds
    let door = attempt.door
    var matched: Int? = nil
    // What cannot be a code or a card matches nothing (and counts as a denial).
    if code.map(CodesLookup.isCode) != false, card.map(CodesLookup.isCard) != false {
      let candidates = AccessDecision.ordered(
        CodesLookup.candidates(in: entries, code: code, card: card, key: people.key),
        entries: entries, at: epoch, zone: zone, place: door)
      if !candidates.isEmpty { matched = firstMatch(candidates, entries, code, card) }
    }
    switch AccessDecision.outcome(
      matched: matched, entries: entries, at: epoch, zone: zone, place: door)
    {
    case .grant(let index, let uses):
      let entry = entries[index]
      if uses != nil, !people.spendsUses {
        return .deny(.unavailable, person: entry.name, duress: entry.duress)
      }
      return .grant(entry.name, duress: entry.duress, uses: uses)
    case .deny(let reason, let index):
      // A duress line denied by its rules still says duress: the alarm is never lost.
      return .deny(
        reason, person: index.map { entries[$0].name },
        duress: index.map { entries[$0].duress } ?? false)
    }
  }

  /// Step 2: the verdict once recorded, the lockout's change and what to log.
  public mutating func settle(_ pending: Pending, _ recorded: Recorded) -> (
    decision: Decision, effects: [Effect]
  ) {
    var decision = pending.decision
    switch recorded {
    case .kept: break
    case .denied(let reason):
      decision = .deny(reason, person: decision.person, duress: decision.duress)
    case .failed: decision = .deny(.unavailable, person: decision.person, duress: decision.duress)
    }
    guard pending.checked else { return (decision, []) }
    let now = clock().mono
    let before = lockout.states
    var effects: [Effect] = []
    if let length = lockout.record(pending.place, granted: decision.granted, now: now) {
      effects.append(
        .say(
          .warning(
            "\(pending.place) locked for \(length.nanoseconds / 1_000_000_000) s after"
              + " \(lockout.rules.maxFailures) denials in a row")))
    }
    if lockout.states != before { effects.append(.saveLockout(lockout.states)) }
    return (decision, effects)
  }
}
