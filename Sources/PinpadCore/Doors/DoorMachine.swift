/// One door (docs/protocol.md, "Doors") as a value: the lock (locked, or unlocked until
/// an instant), the door contact (open, closed, none, or unknown while its chip is gone),
/// the exit button, debouncing of both inputs, and the `forced` and `held_open` alarms.
///
/// Inputs in, actions out; the shell drives the relay and reads the lines. `now` is the
/// monotonic clock. The relay is only ever driven by an action from here, so the rules
/// "locked first at start" and "only these unlock" live in one place.
public struct DoorMachine: Sendable {
  public enum Lock: Equatable, Sendable {
    case locked
    case unlocked(until: Instant)
  }

  public enum Contact: String, Equatable, Sendable {
    case none, open, closed, unknown
  }

  /// The input lines the shell reports.
  public enum Input: Equatable, Sendable {
    case contact
    case exitButton
  }

  /// Who unlocked: an attempt id, the exit button, or a client's `open`.
  public enum Opener: Equatable, Sendable {
    case attempt(String)
    case exit
    case remote

    /// The `by` of the `door` message.
    public var text: String {
      switch self {
      case .attempt(let id): id
      case .exit: "exit"
      case .remote: "remote"
      }
    }
  }

  public enum Event: String, Equatable, Sendable {
    case unlocked, locked, opened, closed
    case heldOpen = "held_open"
    case forced, exit
  }

  public enum Action: Equatable, Sendable {
    /// Drive the lock relay (the shell maps this through FailMode and RelayActiveLow).
    case relay(unlocked: Bool)
    /// A `door` message for every client (`by` with `unlocked` only).
    case event(Event, by: Opener?)
    case log(LogLevel, String)
  }

  public let config: DoorConfig
  public private(set) var lock: Lock = .locked
  public private(set) var contact: Contact
  /// False until `start`, and while the door's lines are lost (its chip went away):
  /// the lock's state is then unknown and nothing can unlock.
  public private(set) var linesHeld = false
  /// The contact opened while locked and has not closed since.
  public private(set) var forced = false
  private var contactInput: Debouncer
  private var exitInput: Debouncer
  /// When an authorised opening becomes `held_open`; nil when none is pending.
  private var heldOpenAt: Instant? = nil

  public init(config: DoorConfig) {
    self.config = config
    contact = config.contact == nil ? .none : .unknown
    contactInput = Debouncer(interval: config.debounce)
    exitInput = Debouncer(interval: config.debounce)
  }

  public var name: String { config.name }
  public var isUnlocked: Bool {
    if case .unlocked = lock { return linesHeld }
    return false
  }

  /// The lines were requested (at start, or again after a chip came back): the relay is
  /// driven locked before anything else; the inputs' current levels are the stable ones.
  public mutating func linesAcquired(contactActive: Bool?, exitActive: Bool?, now: Instant)
    -> [Action]
  {
    linesHeld = true
    lock = .locked
    heldOpenAt = nil
    if let contactActive, config.contact != nil {
      contactInput.reset(contactActive)
      contact = contactActive ? .open : .closed
      forced = false
    }
    if let exitActive { exitInput.reset(exitActive) }
    return [.relay(unlocked: false)]
  }

  /// The chip went away: the lock and contact are unknown until `linesAcquired`.
  public mutating func linesLost(reason: String) -> [Action] {
    guard linesHeld else { return [] }
    linesHeld = false
    lock = .locked
    heldOpenAt = nil
    if config.contact != nil { contact = .unknown }
    return [.log(.error, "door \(name): GPIO lines lost (\(reason)); door state unknown")]
  }

  /// A granted verdict for a waiting attempt from `keypad` (the Session decided it).
  public mutating func granted(id: String, keypad: String, now: Instant) -> [Action] {
    guard config.opens(for: keypad) else { return [] }
    return unlock(by: .attempt(id), now: now)
  }

  /// An authorised client's `{"type":"open","door":NAME}`.
  public mutating func remoteOpen(now: Instant) -> [Action] { unlock(by: .remote, now: now) }

  /// An edge (or a read) on an input line: `active` is its logical level.
  public mutating func line(_ input: Input, active: Bool, now: Instant) -> [Action] {
    guard linesHeld else { return [] }
    switch input {
    case .contact: contactInput.feed(active, now: now)
    case .exitButton: exitInput.feed(active, now: now)
    }
    return tick(now: now)
  }

  /// When `tick` must be called next; nil when nothing waits on time.
  public var nextDeadline: Instant? {
    guard linesHeld else { return nil }
    var deadlines = [contactInput.deadline, exitInput.deadline, heldOpenAt].compactMap { $0 }
    if case .unlocked(let until) = lock { deadlines.append(until) }
    return deadlines.min()
  }

  public mutating func tick(now: Instant) -> [Action] {
    guard linesHeld else { return [] }
    var out: [Action] = []
    if let open = contactInput.settle(now: now), config.contact != nil {
      contactChanged(open: open, now: now, &out)
    }
    if let pressed = exitInput.settle(now: now), pressed {
      out.append(.event(.exit, by: nil))
      out += unlock(by: .exit, now: now)
    }
    if case .unlocked(let until) = lock, now >= until {
      lock = .locked
      out.append(.relay(unlocked: false))
      out.append(.event(.locked, by: nil))
    }
    if let at = heldOpenAt, now >= at {
      heldOpenAt = nil
      out.append(.event(.heldOpen, by: nil))
      out.append(
        .log(.warning, "door \(name): held open longer than \(config.heldOpen.secondsText) s"))
    }
    return out
  }

  /// The shell drove the relay unlocked and the chip took it at `now`: OpenSec runs from
  /// there, so a slow chip (a USB bridge answers in milliseconds) never shortens it.
  public mutating func relayDriven(unlocked: Bool, now: Instant) {
    guard unlocked, linesHeld, case .unlocked(let until) = lock else { return }
    lock = .unlocked(until: max(until, now + config.open))
  }

  private mutating func unlock(by opener: Opener, now: Instant) -> [Action] {
    guard linesHeld else {
      return [
        .log(.warning, "door \(name): not unlocked for \(opener.text): its GPIO lines are lost")
      ]
    }
    var out: [Action] = []
    if case .locked = lock { out.append(.relay(unlocked: true)) }
    lock = .unlocked(until: now + config.open)
    out.append(.event(.unlocked, by: opener))
    return out
  }

  private mutating func contactChanged(open: Bool, now: Instant, _ out: inout [Action]) {
    contact = open ? .open : .closed
    out.append(.event(open ? .opened : .closed, by: nil))
    if open {
      if case .unlocked = lock {
        heldOpenAt = now + config.heldOpen
      } else {
        forced = true
        out.append(.event(.forced, by: nil))
        out.append(.log(.warning, "door \(name): forced open (contact opened while locked)"))
      }
    } else {
      heldOpenAt = nil
      forced = false
    }
  }
}

/// A line's level, accepted once it has held for `interval` (contact bounce, a button's
/// chatter). A level that returns to the stable one before then is no change.
struct Debouncer: Sendable {
  let interval: Duration
  private(set) var stable = false
  private var pending: (level: Bool, at: Instant)? = nil

  init(interval: Duration) { self.interval = interval }

  var deadline: Instant? { pending?.at }

  mutating func reset(_ level: Bool) {
    stable = level
    pending = nil
  }

  mutating func feed(_ level: Bool, now: Instant) {
    if level == stable {
      pending = nil
    } else if pending?.level != level {
      pending = (level, now + interval)
    }
  }

  /// The new stable level when one settled by `now`.
  mutating func settle(now: Instant) -> Bool? {
    guard let pending, now >= pending.at else { return nil }
    self.pending = nil
    stable = pending.level
    return stable
  }
}
