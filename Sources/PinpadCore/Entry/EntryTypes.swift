/// What an `EntryMachine` is told.
public enum EntryInput: Sendable {
  /// A key event from the keypad: value 1 press, 0 release, 2 autorepeat.
  case key(KeyCode, value: Int32)
  /// The kernel dropped events on this keypad (SYN_DROPPED): the partial entry is wiped.
  case eventsDropped
  /// A card went to the controller without a PIN (pinpadd(8), CARD READERS): a partial
  /// entry is wiped (`cleared`) and the keypad waits for the verdict as after a code,
  /// which counts toward the lockout the same way. The machine answers with an empty
  /// `.submit`.
  case cardSubmitted
  /// A new card replaced the one this entry was typed for: a partial entry is wiped
  /// with a `cleared` event.
  case clear
  /// The entry's card ran out of time (PinAfterCardSec): a partial entry is wiped and a
  /// `timeout` event sent, also when no digit was typed yet.
  case timedOut
  /// What became of the code this keypad submitted.
  case verdict(VerdictOutcome)
  /// Time has passed: act on any deadline that is due (see `EntryMachine.nextDeadline`).
  case tick
}

/// What became of a submitted code.
public enum VerdictOutcome: String, Equatable, Sendable {
  /// The controller granted it: the failure count and the lockout backoff reset.
  case granted
  /// The controller denied it: one more consecutive failure.
  case denied
  /// No verdict within VerdictTimeoutSec: counts as neither granted nor denied.
  case noResponse
  /// No controller took the code within DeliveryTimeoutSec: counts as neither.
  case undelivered
}

/// The lifecycle events of docs/protocol.md, "Socket: entry"
/// (`{"type":"entry","event":...}`); they carry a length, never a digit.
public enum EntryEvent: String, Equatable, Sendable, CaseIterable {
  case started, changed, deleted, cleared, timeout, rejected
  /// A card was read and taken (held for its PIN, or submitted): never its digits nor
  /// its length (docs/protocol.md, "Socket: entry"). The session sends it; entry machines
  /// never do.
  case cardRead = "card_read"
}

/// Feedback for the person at the keypad about a key that did not do what they hoped.
public enum EntryFeedback: Equatable, Sendable {
  /// SubmitKey below MinLength: the entry is kept.
  case tooShort
  /// A digit beyond MaxLength: ignored.
  case full
  /// A key that is neither an allowed digit nor a control key: ignored.
  case notAllowed
  /// A burst that carried a disallowed key, or any burst under `Bursts=reject`.
  case burstRejected
  /// A digit while the keypad is locked out.
  case locked
  /// A digit while the last code is still being checked.
  case busy
  /// A digit on a keypad that needs a card first (`card`, or `card+pin` with no card).
  case presentCard
  /// The card reader's number was not a card number (a letter, too long).
  case cardRejected
}

/// What the owner of an `EntryMachine` must do after an input. The machine does no I/O.
public enum EntryAction: Sendable {
  /// Publish an `entry` event with the entry's length after the input.
  case entry(EntryEvent, length: Int)
  /// A completed code. The receiver owns the buffer and must `wipe()` it once sent.
  case submit(SecretDigits)
  /// Show feedback for a key that was refused.
  case feedback(EntryFeedback)
  /// The keypad just locked out for this many seconds (publish a `lockout` event).
  case lockout(seconds: Int)
  /// Something the screen shows changed (phase, length, reveal, lock countdown end).
  case screenChanged
}

extension EntryAction: Equatable {
  /// Two `submit`s are equal when their digits are; used by tests.
  public static func == (a: EntryAction, b: EntryAction) -> Bool {
    switch (a, b) {
    case (.entry(let e1, let l1), .entry(let e2, let l2)): return e1 == e2 && l1 == l2
    case (.submit(let d1), .submit(let d2)):
      guard d1.count == d2.count else { return false }
      for i in 0..<d1.count where d1[i] != d2[i] { return false }
      return true
    case (.feedback(let f1), .feedback(let f2)): return f1 == f2
    case (.lockout(let s1), .lockout(let s2)): return s1 == s2
    case (.screenChanged, .screenChanged): return true
    default: return false
    }
  }
}

/// The phase an entry is in, for the screen and for `status`.
public enum EntryPhase: Equatable, Sendable {
  /// Nothing typed.
  case idle
  /// Some digits typed.
  case entering
  /// A code was submitted; waiting for its verdict. Digits are refused (`busy`).
  case checking
  /// Locked out until this instant. Digits are refused (`locked`).
  case locked(until: Instant)
}

/// The lockout bookkeeping of one keypad: what `pinpadd` saves in its state directory.
public struct LockoutState: Equatable, Sendable {
  /// Consecutive denials since the last grant or lockout.
  public var failures = 0
  /// Lockouts since the last grant: the next one lasts LockoutSec × 2^level (capped).
  public var level = 0
  /// When the current lockout ends, nil when not locked.
  public var lockedUntil: Instant? = nil
  public init(failures: Int = 0, level: Int = 0, lockedUntil: Instant? = nil) {
    self.failures = failures
    self.level = level
    self.lockedUntil = lockedUntil
  }
}
