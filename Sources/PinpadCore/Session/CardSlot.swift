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

  private let reading = SecretDigits()
  private var spoiled = false
  private var lastKeyAt: Instant? = nil

  /// The card waiting for its PIN (card+pin), nil when none.
  public private(set) var held: SecretDigits? = nil
  /// When the held card is wiped if no PIN has come.
  public private(set) var heldUntil: Instant? = nil

  public init() {}

  /// Digits read so far of the number being typed (tests, `description`).
  public var readingCount: Int { reading.count }

  /// The earliest moment something here is due: a stalled read or a held card.
  public var nextDeadline: Instant? {
    [lastKeyAt.map { $0 + CardSlot.readTimeout }, heldUntil].compactMap { $0 }.min()
  }

  /// One key event from the reader at `now`.
  public mutating func key(_ code: KeyCode, value: Int32, now: Instant) -> Outcome {
    guard value == 1, code != .numLock else { return .none }
    expireRead(now: now)
    if code == .enter || code == .kpEnter {
      defer {
        spoiled = false
        lastKeyAt = nil
      }
      if spoiled {
        reading.wipe()
        return .rejected
      }
      return reading.isEmpty ? .none : .card
    }
    lastKeyAt = now
    guard !spoiled else { return .none }
    guard let digit = code.digit, reading.count < CardSlot.maxDigits else {
      reading.wipe()
      spoiled = true
      return .none
    }
    reading.append(digit)
    return .none
  }

  /// The card just read (after `.card`), in a buffer of its own; the reading is wiped.
  public mutating func take() -> SecretDigits { reading.take() }

  /// Keeps `card` for its PIN until `until`; a card held before is wiped (replaced).
  public mutating func hold(_ card: SecretDigits, until: Instant) {
    held?.wipe()
    held = card
    heldUntil = until
  }

  /// The held card, now the caller's; nil when none.
  public mutating func takeHeld() -> SecretDigits? {
    defer {
      held = nil
      heldUntil = nil
    }
    return held
  }

  /// The reader lost events: the number being typed is dropped (the held card stays).
  public mutating func dropRead() {
    reading.wipe()
    spoiled = false
    lastKeyAt = nil
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
    held = nil
    heldUntil = nil
  }

  /// Wipes everything.
  public mutating func wipe() {
    dropRead()
    wipeHeld()
  }

  private mutating func expireRead(now: Instant) {
    guard let last = lastKeyAt, last + CardSlot.readTimeout <= now else { return }
    dropRead()
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
