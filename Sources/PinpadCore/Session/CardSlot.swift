/// One keypad's card reader (pinpadd(8), CARD READERS): the number being typed by the
/// reader and the card read last, held until it is submitted (or, in card+pin, until its
/// PIN comes).
///
/// A reader types the number's digits and then Enter, faster than any person, so none
/// of the PIN entry's rules (bursts, allowed digits, lengths) apply here. A key that is
/// neither a digit nor Enter, or more than `maxDigits` digits, spoils the read: the
/// card is rejected when its Enter comes. A read with no key for `readTimeout` is
/// dropped (a reader that never sent Enter). Digits live only in `SecretDigits`.
public struct CardSlot {
  /// The longest card number (the capacity of a secret buffer).
  public static let maxDigits = SecretDigits.capacity
  /// A read that stops this long before its Enter is dropped.
  public static let readTimeout: Duration = .seconds(1)

  /// What a reader's key did.
  public enum Outcome: Equatable {
    /// Nothing yet (a digit, a release, a repeat).
    case none
    /// A card number ended by Enter: `take()` it.
    case card
    /// The read was spoiled (a non-digit key or too many digits): the card is refused.
    case rejected
  }

  /// Where the reader's typing is: the digits themselves are in `reading`.
  public enum Read: Equatable, Sendable {
    /// No read under way (none begun, or the last one ended by Enter or dropped).
    case idle
    /// Digits are coming; the last key came at `lastKeyAt`.
    case reading(lastKeyAt: Instant)
    /// A key that is not a digit, or one digit too many: refused at its Enter.
    case spoiled(lastKeyAt: Instant)
  }

  /// A card read and not yet submitted: it waits for its PIN (card+pin), or for its
  /// submit (card), until `until`. The card's digits are its own buffer's.
  public enum Held {
    case none
    case card(SecretDigits, until: Instant)
  }

  private let reading = SecretDigits()
  public private(set) var read = Read.idle
  public private(set) var holding = Held.none

  public init() {}

  /// The card waiting for its PIN (card+pin), nil when none.
  public var held: SecretDigits? {
    if case .card(let card, _) = holding { card } else { nil }
  }
  /// When the held card is wiped if no PIN has come.
  public var heldUntil: Instant? {
    if case .card(_, let until) = holding { until } else { nil }
  }

  /// Digits read so far of the number being typed (tests, `description`).
  public var readingCount: Int { reading.count }

  /// The earliest moment something here is due: a stalled read or a held card.
  public var nextDeadline: Instant? {
    let stall: Instant? =
      switch read {
      case .idle: nil
      case .reading(let last), .spoiled(let last): last + CardSlot.readTimeout
      }
    guard let until = heldUntil else { return stall }
    return stall.map { min($0, until) } ?? until
  }

  /// One key event from the reader at `now`.
  public mutating func key(_ code: KeyCode, value: Int32, now: Instant) -> Outcome {
    guard value == 1, code != .numLock else { return .none }
    expireRead(now: now)
    if code == .enter || code == .kpEnter {
      defer { read = .idle }
      if case .spoiled = read {
        reading.wipe()
        return .rejected
      }
      return reading.isEmpty ? .none : .card
    }
    if case .spoiled = read {
      read = .spoiled(lastKeyAt: now)
      return .none
    }
    guard let digit = code.digit, reading.count < CardSlot.maxDigits else {
      reading.wipe()
      read = .spoiled(lastKeyAt: now)
      return .none
    }
    reading.append(digit)
    read = .reading(lastKeyAt: now)
    return .none
  }

  /// The card just read (after `.card`), in a buffer of its own; the reading is wiped.
  public mutating func take() -> SecretDigits { reading.take() }

  /// Keeps `card` for its PIN until `until`; a card held before is wiped (replaced).
  public mutating func hold(_ card: SecretDigits, until: Instant) {
    held?.wipe()
    holding = .card(card, until: until)
  }

  /// The held card, now the caller's; nil when none.
  public mutating func takeHeld() -> SecretDigits? {
    defer { holding = .none }
    return held
  }

  /// The reader lost events: the number being typed is dropped (the held card stays).
  public mutating func dropRead() {
    reading.wipe()
    read = .idle
  }

  /// Acts on what is due at `now`; true when a held card was wiped (no PIN in time).
  public mutating func expire(now: Instant) -> Bool {
    expireRead(now: now)
    guard let until = heldUntil, until <= now else { return false }
    wipeHeld()
    return true
  }

  /// Wipes the held card (a lockout, a card refused, shutdown).
  public mutating func wipeHeld() {
    held?.wipe()
    holding = .none
  }

  /// Wipes everything.
  public mutating func wipe() {
    dropRead()
    wipeHeld()
  }

  private mutating func expireRead(now: Instant) {
    switch read {
    case .idle: return
    case .reading(let last), .spoiled(let last):
      if last + CardSlot.readTimeout <= now { dropRead() }
    }
  }
}

extension CardSlot: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// Counts only: never a digit.
  public var description: String {
    "CardSlot(reading: \(reading.count), held: \(held != nil))"
  }
  public var debugDescription: String { description }
  public var customMirror: Mirror {
    Mirror(self, children: ["reading": reading.count, "held": held != nil], displayStyle: .struct)
  }
}
