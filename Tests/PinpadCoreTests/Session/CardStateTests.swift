import Testing

@testable import PinpadCore

/// A card reader's states as values: the read (`CardSlot.Read`), the card held for its
/// PIN (`CardSlot.Held`, the card its payload) and a keypad's slot (`Keypad`).
@Suite struct CardStateTests {
  static let t = Instant(nanoseconds: 5_000_000_000)

  static func type(_ keys: [String], into slot: inout CardSlot, at now: Instant = t)
    -> [CardSlot.Outcome]
  {
    keys.map { slot.key(key($0), value: 1, now: now) }
  }

  static func door(_ mode: CardMode, pinAfter: Duration = .seconds(10)) -> Keypad {
    var config = KeypadConfig(name: "door")
    config.cardMode = mode
    config.pinAfterCard = pinAfter
    return Keypad(
      name: "door", machine: EntryMachine(rules: .testing(), lockout: .testing()),
      config: config)
  }

  @Test("a read goes idle, reading, idle at its Enter; a non-digit spoils it until then")
  func readStates() {
    var slot = CardSlot()
    #expect(slot.read == .idle)
    _ = Self.type(["KP1"], into: &slot)
    #expect(slot.read == .reading(lastKeyAt: Self.t))
    _ = Self.type(["A"], into: &slot, at: Self.t + .milliseconds(5))
    #expect(slot.read == .spoiled(lastKeyAt: Self.t + .milliseconds(5)))
    #expect(slot.readingCount == 0, "a spoiled read keeps no digit")
    _ = Self.type(["KP2"], into: &slot, at: Self.t + .milliseconds(6))
    #expect(slot.read == .spoiled(lastKeyAt: Self.t + .milliseconds(6)))
    #expect(Self.type(["ENTER"], into: &slot) == [.rejected])
    #expect(slot.read == .idle)
    #expect(Self.type(["KP3", "ENTER"], into: &slot) == [.none, .card])
    #expect(slot.read == .idle)
  }

  @Test("a read due: its last key plus readTimeout; then it is dropped")
  func stalledRead() {
    var slot = CardSlot()
    _ = Self.type(["KP1", "KP2"], into: &slot)
    #expect(slot.nextDeadline == Self.t + CardSlot.readTimeout)
    let cardExpired = slot.expire(now: Self.t + CardSlot.readTimeout)
    #expect(!cardExpired)
    #expect(slot.read == .idle)
    #expect(slot.readingCount == 0)
    #expect(slot.nextDeadline == nil)
  }

  @Test("a held card carries its digits and its time; taken, the slot holds none")
  func heldCarriesTheCard() {
    var slot = CardSlot()
    _ = Self.type(["KP4", "KP2", "ENTER"], into: &slot)
    let card = slot.take()
    slot.hold(card, until: Self.t + .seconds(10))
    guard case .card(let held, let until) = slot.holding else {
      Issue.record("no card held")
      return
    }
    #expect(held === card && until == Self.t + .seconds(10))
    #expect(slot.nextDeadline == Self.t + .seconds(10))
    let taken = slot.takeHeld()
    #expect(taken === card)
    #expect(string(card) == "42", "taken, not wiped: the caller submits it")
    if case .card = slot.holding { Issue.record("still held") }
    #expect(slot.takeHeld() == nil)
  }

  @Test("the earlier of a stalled read and a held card's end is the deadline")
  func deadlineOfBoth() {
    var slot = CardSlot()
    slot.hold(SecretDigits(), until: Self.t + .milliseconds(500))
    _ = Self.type(["KP1"], into: &slot)
    #expect(slot.nextDeadline == Self.t + .milliseconds(500))
    slot.hold(SecretDigits(), until: Self.t + .seconds(3))
    #expect(slot.nextDeadline == Self.t + CardSlot.readTimeout)
  }

  @Test("a keypad's slot is made by its reader's first key, not before")
  func slotMadeByFirstKey() {
    var door = Self.door(.cardPin)
    #expect(door.card == nil)
    #expect(door.takeHeldCard() == nil)
    let expired = door.expireCard(now: Self.t)
    #expect(!expired)
    let wasHeld = door.wipeCard()
    #expect(!wasHeld)
    #expect(door.card == nil)
    guard case .none = door.readCard(key("KP1"), value: 1, now: Self.t) else {
      Issue.record("a digit is no card")
      return
    }
    #expect(door.card?.readingCount == 1)
  }

  @Test("a keypad's read card comes as the payload; held until PinAfterCardSec; replaced")
  func keypadHoldsAndReplaces() {
    var door = Self.door(.cardPin, pinAfter: .seconds(4))
    _ = door.readCard(key("KP7"), value: 1, now: Self.t)
    guard case .card(let first) = door.readCard(.enter, value: 1, now: Self.t) else {
      Issue.record("no card")
      return
    }
    #expect(string(first) == "7")
    #expect(door.card?.readingCount == 0, "the card left the reader's buffer")
    let replacedOne = door.hold(first, now: Self.t)
    #expect(!replacedOne)
    #expect(door.card?.heldUntil == Self.t + .seconds(4))
    _ = door.readCard(key("KP8"), value: 1, now: Self.t + .seconds(1))
    guard case .card(let second) = door.readCard(.enter, value: 1, now: Self.t + .seconds(1))
    else {
      Issue.record("no second card")
      return
    }
    let replaced = door.hold(second, now: Self.t + .seconds(1))
    #expect(replaced)
    #expect(first.count == 0, "a replaced card is wiped")
    let early = door.expireCard(now: Self.t + .seconds(4))
    #expect(!early)
    let due = door.expireCard(now: Self.t + .seconds(5))
    #expect(due)
    #expect(second.count == 0, "a card whose time ran out is wiped")
    #expect(door.card?.held == nil)
  }

  @Test("a rejected read, a dropped read, a wipe and a dropped slot")
  func rejectDropWipe() {
    var door = Self.door(.card)
    _ = door.readCard(key("A"), value: 1, now: Self.t)
    guard case .rejected = door.readCard(.enter, value: 1, now: Self.t) else {
      Issue.record("not rejected")
      return
    }
    _ = door.readCard(key("KP1"), value: 1, now: Self.t)
    door.dropCardRead()
    #expect(door.card?.read == .idle && door.card?.readingCount == 0)
    let card = SecretDigits()
    card.append(9)
    _ = door.hold(card, now: Self.t)
    let held = door.wipeCard()
    #expect(held, "a card was held")
    #expect(card.count == 0)
    #expect(door.card != nil, "the slot stays")
    door.wipeCard(dropSlot: true)
    #expect(door.card == nil)
  }
}
