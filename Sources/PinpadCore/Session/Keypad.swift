/// One keypad's part of the `Session`: its entry, its card reader's slot and its
/// `[Keypad]` section, kept together so that one lookup by name finds all three.
public struct Keypad {
  public let name: String
  public internal(set) var machine: EntryMachine
  /// The card being read and the card held for a PIN; nil until the keypad's reader
  /// first types (a slot holds locked memory, so a keypad without a reader has none).
  public private(set) var card: CardSlot?
  /// Its `[Keypad]` section, nil for one that has none ("default", the screen's keypad).
  public internal(set) var config: KeypadConfig?

  init(name: String, machine: EntryMachine, config: KeypadConfig?) {
    self.name = name
    self.machine = machine
    self.config = config
  }

  /// `off` for a keypad without a section.
  public var cardMode: CardMode { config?.cardMode ?? .off }

  public var pinAfterCard: Duration {
    config?.pinAfterCard ?? KeypadConfig(name: "").pinAfterCard
  }

  /// What a key from the card reader did (`CardSlot.Outcome`), a card with its digits.
  enum CardRead {
    case none
    case rejected
    /// A card number ended by Enter, now the caller's.
    case card(SecretDigits)
  }

  /// A key from the keypad's card reader; its first makes the slot.
  mutating func readCard(_ code: KeyCode, value: Int32, now: Instant) -> CardRead {
    var slot = card ?? CardSlot()
    defer { card = slot }
    switch slot.key(code, value: value, now: now) {
    case .none: return .none
    case .rejected: return .rejected
    case .card: return .card(slot.take())
    }
  }

  /// Holds `read` for its PIN or its submit until `PinAfterCardSec` after `now`; true
  /// when it replaced a card held before (which is wiped).
  mutating func hold(_ read: SecretDigits, now: Instant) -> Bool {
    var slot = card ?? CardSlot()
    defer { card = slot }
    let replaced = slot.held != nil
    slot.hold(read, until: now + pinAfterCard)
    return replaced
  }

  /// The held card, now the caller's (to be submitted); nil when none.
  mutating func takeHeldCard() -> SecretDigits? { card?.takeHeld() ?? nil }

  /// Wipes the card being read and the card held; true when a card was held.
  /// `dropSlot` gives the slot (and its locked memory) back too.
  @discardableResult
  mutating func wipeCard(dropSlot: Bool = false) -> Bool {
    let held = card?.held != nil
    card?.wipe()
    if dropSlot { card = nil }
    return held
  }

  /// The reader lost events: the read under way is dropped (a held card stays).
  mutating func dropCardRead() { card?.dropRead() }

  /// True when a held card's time ran out at `now` (it is wiped); a stalled read is
  /// dropped.
  mutating func expireCard(now: Instant) -> Bool { card?.expire(now: now) ?? false }
}
