/// The Session's card readers (pinpadd(8), CARD READERS): a card read, refused, held
/// for a PIN or submitted alone, and wiped when its reader goes.
extension Session {
  /// The card mode of a keypad (`off` for one without a section).
  public func cardMode(_ keypad: String) -> CardMode {
    keypads[keypad]?.cardMode ?? config.keypads.first { $0.name == keypad }?.cardMode ?? .off
  }

  /// A keypad digit that needs a card first: in `card` mode, or `card+pin` with no card
  /// held, on an idle entry (a locked or busy keypad says so itself).
  mutating func needsCard(_ k: Int, at: Instant, now: Instant, _ out: inout [Effect])
    -> Bool
  {
    let mode = keypads[k].cardMode
    guard mode == .card || (mode == .cardPin && keypads[k].card?.held == nil) else {
      return false
    }
    feed(.tick, keypad: k, at: at, now: now, &out)
    return keypads[k].machine.phase == .idle
  }

  mutating func cardKey(
    _ keypad: String, _ code: KeyCode, value: Int32, stamp: Instant, now: Instant,
    _ out: inout [Effect]
  ) {
    let at = clock.advance(to: stamp, monotonic: now)
    let mode = cardMode(keypad)
    guard mode != .off else { return }
    let k = index(keypad)
    let card: SecretDigits
    switch keypads[k].readCard(code, value: value, now: at) {
    case .none:
      return
    case .rejected:
      activate(keypad)
      log(.info, "keypad \(keypad): card rejected (not a card number)", &out)
      presenter.showFeedback(.cardRejected, now: at)
      return
    case .card(let read):
      card = read
    }
    activate(keypad)
    feed(.tick, keypad: k, at: at, now: now, &out)
    switch keypads[k].machine.phase {
    case .locked, .checking:
      // Refused like a digit: the machine gives its feedback (locked, busy), no submit.
      card.wipe()
      log(.info, "keypad \(keypad): card refused, the keypad is locked or busy", &out)
      feed(.cardSubmitted, keypad: k, at: at, now: now, &out)
      return
    case .idle, .entering:
      break
    }
    let replaced = keypads[k].hold(card, now: at)
    let cardRead = OutgoingMessage.entry(keypad: keypad, event: .cardRead, length: 0)
    if mode == .cardPin {
      log(
        .info, "keypad \(keypad): card \(replaced ? "replaced" : "read"), waiting for the PIN", &out
      )
      feed(.clear, keypad: k, at: at, now: now, &out)
      out.append(.broadcast(cardRead))
    } else {
      out.append(.broadcast(cardRead))
      feed(.cardSubmitted, keypad: k, at: at, now: now, &out)
    }
  }

  /// A card reader of `keypad` went away: the number it was typing and the card held for
  /// a PIN are wiped (with any PIN typed for that card), so a card never outlives its
  /// reader; a reader plugged back in starts afresh.
  mutating func cardReaderRemoved(_ keypad: String, now: Instant, _ out: inout [Effect]) {
    guard let k = keypads.index(of: keypad), keypads[k].wipeCard() else { return }
    log(.info, "keypad \(keypad): card reader removed, the held card is wiped", &out)
    feed(.clear, keypad: k, at: clock.time(at: now), now: now, &out)
  }

  /// The screen turns to `keypad`: a shown verdict gives way.
  private mutating func activate(_ keypad: String) {
    if activeKeypad != keypad || presenter.hasResult {
      activeKeypad = keypad
      presenter.keyPressed()
    }
  }
}
