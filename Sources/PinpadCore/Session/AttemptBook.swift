/// The codes handed to the controller and what became of them (docs/protocol.md, "Socket:
/// delivery").
///
/// A code first waits for a client (up to DeliveryTimeoutSec), holding its digits; it
/// is offered to the clients (`offerWaiting`) and the shell's answer (`offerAnswered`)
/// says whether one took it. Once sent its digits are gone and it waits for the first
/// verdict (up to VerdictTimeoutSec). Pure: the `Session` decides, the daemon sends.
public struct AttemptBook {
  public struct Attempt {
    public let id: String
    /// The id's 128 bits, compared when a new id is drawn (two words, not 32 bytes).
    fileprivate let bits: IDBits
    public let keypad: String
    /// The digits, only while no client has had them (empty for a card alone).
    public fileprivate(set) var digits: SecretDigits?
    /// The card number that came with them (docs/protocol.md, "Socket: code"), wiped with
    /// the digits.
    public fileprivate(set) var card: SecretDigits? = nil
    public fileprivate(set) var deadline: Instant
    /// An offer is out (the shell is writing the code) and not answered yet: the code is
    /// not offered again meanwhile.
    public fileprivate(set) var offered = false
    /// An offer found no client connected, and the caller was told to say so: once.
    public fileprivate(set) var warnedNoClient = false
    public var delivered: Bool { digits == nil }
  }

  public private(set) var attempts: [Attempt] = []
  /// Ids that were decided or timed out lately (the last `settledKept`), to tell a late
  /// verdict from an unknown id: a ring, the oldest overwritten by the newest.
  private var settled: [Settled] = []
  /// Where the next settled id goes once the ring is full.
  private var settledNext = 0
  public static let settledKept = 256
  /// Where ids come from: the daemon passes getrandom(2), tests a seeded generator.
  private var random: any RandomNumberGenerator

  /// Ids are 128 random bits as 32 lowercase hex digits, drawn afresh for each attempt
  /// (docs/protocol.md, "Socket: code"): nothing visible (an earlier id, a start time)
  /// tells the next one, so no verdict can be published for an attempt before its code
  /// exists.
  public init(random: any RandomNumberGenerator) { self.random = random }

  public static let idLength = 32

  fileprivate struct IDBits: Equatable {
    var high: UInt64
    var low: UInt64
  }

  private struct Settled {
    var id: String
    var bits: IDBits
    var timedOut: Bool
  }

  /// A fresh id, drawn again in the (2^-128) case that it is already in use.
  private mutating func newID() -> (String, IDBits) {
    while true {
      let bits = IDBits(high: random.next(), low: random.next())
      if !attempts.contains(where: { $0.bits == bits }),
        !settled.contains(where: { $0.bits == bits })
      {
        return (AttemptBook.hex(bits.high, bits.low), bits)
      }
    }
  }

  /// `high` then `low` as 32 lowercase hex digits, written straight into the String.
  private static func hex(_ high: UInt64, _ low: UInt64) -> String {
    String(unsafeUninitializedCapacity: idLength) { bytes in
      for i in 0..<idLength {
        let value = i < 16 ? high : low
        let nibble = UInt8(truncatingIfNeeded: value >> (4 * UInt64(15 - i % 16))) & 0xF
        bytes[i] = nibble < 10 ? 0x30 + nibble : UInt8(ascii: "a") + nibble - 10
      }
      return idLength
    }
  }

  /// A new attempt for `digits` (and `card`) from `keypad`, waiting for a client until
  /// `deadline`.
  public mutating func add(
    keypad: String, digits: SecretDigits, card: SecretDigits? = nil, deadline: Instant
  ) -> String {
    let (id, bits) = newID()
    attempts.append(
      Attempt(id: id, bits: bits, keypad: keypad, digits: digits, card: card, deadline: deadline))
    return id
  }

  /// Hands each code that waits for a client and has no offer out to `send` (its id,
  /// keypad, digits and card), and marks it offered: it is handed out again only after
  /// `offerAnswered` says no client took it.
  public mutating func offerWaiting(
    _ send: (_ id: String, _ keypad: String, SecretDigits, _ card: SecretDigits?) -> Void
  ) {
    for i in attempts.indices where !attempts[i].offered {
      guard let digits = attempts[i].digits else { continue }
      attempts[i].offered = true
      send(attempts[i].id, attempts[i].keypad, digits, attempts[i].card)
    }
  }

  /// What became of an offer.
  public enum OfferOutcome: Equatable {
    /// A client took the code: its digits are wiped, it waits for a verdict.
    case sent
    /// No client was connected, the first time for this attempt: worth one warning.
    case firstWithoutClient
    /// Nothing new to say: no client took the code (again, or one was connected but went
    /// meanwhile) and it waits on for one; or no attempt holds a code under that id.
    case nothingNew
  }

  /// The shell's answer to the offer of `id`: `clients` took the code, of `connected`.
  /// Taken, its digits are wiped and it waits for a verdict until `verdictDeadline`;
  /// not taken, it keeps its digits and its deadline, and is offered again.
  public mutating func offerAnswered(
    id: String, clients: Int, connected: Int, verdictDeadline: Instant
  ) -> OfferOutcome {
    guard let i = attempts.firstIndex(where: { $0.id == id }) else { return .nothingNew }
    attempts[i].offered = false
    if clients > 0 {
      guard let digits = attempts[i].digits else { return .nothingNew }
      digits.wipe()
      attempts[i].digits = nil
      attempts[i].card?.wipe()
      attempts[i].card = nil
      attempts[i].deadline = verdictDeadline
      return .sent
    }
    guard connected == 0, !attempts[i].warnedNoClient else { return .nothingNew }
    attempts[i].warnedNoClient = true
    return .firstWithoutClient
  }

  public enum VerdictMatch: Equatable {
    case accepted(keypad: String)
    case alreadyDecided
    /// Its time for a verdict (or for a client) ran out first.
    case timedOut
    case unknown
    /// The code has not reached a client yet (cannot happen through the socket).
    case notDelivered
  }

  /// The first verdict for a delivered id wins; later ones are refused.
  public mutating func decide(id: String) -> VerdictMatch {
    guard let i = attempts.firstIndex(where: { $0.id == id }) else {
      // Settled ids are unique (`newID`): the first match is the only one.
      guard let past = settled.first(where: { $0.id == id }) else { return .unknown }
      return past.timedOut ? .timedOut : .alreadyDecided
    }
    guard attempts[i].delivered else { return .notDelivered }
    let attempt = attempts.remove(at: i)
    remember(id, attempt.bits, timedOut: false)
    return .accepted(keypad: attempt.keypad)
  }

  /// Attempts whose deadline has come: removed, digits wiped, returned with whether
  /// they had reached a client (no verdict) or not (no client).
  public mutating func expire(now: Instant) -> [(id: String, keypad: String, delivered: Bool)] {
    var expired: [(String, String, Bool)] = []
    var gone: [IDBits] = []
    attempts.removeAll { attempt in
      guard attempt.deadline <= now else { return false }
      expired.append((attempt.id, attempt.keypad, attempt.delivered))
      gone.append(attempt.bits)
      attempt.digits?.wipe()
      attempt.card?.wipe()
      return true
    }
    for (attempt, bits) in zip(expired, gone) { remember(attempt.0, bits, timedOut: true) }
    return expired
  }

  /// Wipes every held code (shutdown).
  public mutating func wipeAll() {
    for attempt in attempts {
      attempt.digits?.wipe()
      attempt.card?.wipe()
    }
    attempts.removeAll()
  }

  public var nextDeadline: Instant? {
    // By index: only the deadline is read, no attempt copied (asked after every batch).
    var earliest: Instant? = nil
    for i in attempts.indices where earliest.map({ attempts[i].deadline < $0 }) ?? true {
      earliest = attempts[i].deadline
    }
    return earliest
  }

  private mutating func remember(_ id: String, _ bits: IDBits, timedOut: Bool) {
    let entry = Settled(id: id, bits: bits, timedOut: timedOut)
    if settled.count < Self.settledKept {
      settled.append(entry)
    } else {
      settled[settledNext] = entry
      settledNext = (settledNext + 1) % Self.settledKept
    }
  }
}
