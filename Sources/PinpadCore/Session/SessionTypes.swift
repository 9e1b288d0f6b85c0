/// What a device is to its keypad: the `role` of `keypad` events (docs/protocol.md,
/// "Socket: keypad").
public enum DeviceRole: String, Equatable, Sendable, CaseIterable {
  case keypad
  case cardReader = "card_reader"
}

/// What the daemon's shell tells the `Session`: something an input, the socket, a signal
/// or the timer brought. Times are the monotonic clock; `stamp` is an input's own time
/// for its event (the kernel's, or a replay's recorded offset).
public enum SessionEvent {
  /// The daemon is up: draw the first screen, tell systemd.
  case start
  /// An evdev key event (value 1 press, 0 release, 2 repeat) from `keypad`'s input.
  case key(keypad: String, KeyCode, value: Int32, stamp: Instant)
  /// A key event from `keypad`'s card reader (pinpadd(8), CARD READERS).
  case cardKey(keypad: String, KeyCode, value: Int32, stamp: Instant)
  /// `keypad`'s card reader lost events: the number being read is dropped.
  case cardDropped(keypad: String)
  /// `keypad`'s input lost events in the kernel (SYN_DROPPED).
  case dropped(keypad: String, stamp: Instant)
  /// A device of `keypad` appeared or went away: its keypad, or its card reader (whose
  /// removal wipes the card being read and the card held, pinpadd(8), CARD READERS).
  case deviceAdded(keypad: String, path: String, role: DeviceRole = .keypad)
  case deviceRemoved(keypad: String, path: String, role: DeviceRole = .keypad)
  /// A touch or click, with the on-screen key under it (hit-tested by the shell).
  case padPress(keypad: String, PointerAction, key: PadKey?, stamp: Instant)
  /// A pointer lost events or went away.
  case pointerLost
  /// A client finished connecting: held codes may go out now.
  case clientReady
  /// The answer to `Effect.sendCode`: how many clients took the line, of how many.
  case codeSent(id: String, clients: Int, connected: Int)
  /// A client's verdict (`client` is its serial number, for the log and the reply);
  /// `duress` raises the alarm (docs/protocol.md, "Socket: alarm").
  case verdict(
    id: String, granted: Bool, message: String?, duress: Bool = false, reason: String? = nil,
    client: Int)
  /// A client asked for `status`; the shell adds what only it knows.
  case status(client: Int, ShellStatus)
  /// SIGHUP with a configuration that parsed. Boxed (`indirect`): a configuration is
  /// 400 bytes, and every event, a key press among them, would be that big with it.
  indirect case reload(Configuration)
  /// The answer to `Effect.persistLockouts`: nil when the file was written, else why not.
  case lockoutsSaved(failure: String?)
  /// The display lost its picture (a VT switched back): the next frame is drawn whole.
  case screenLost
  /// The timer fired (`nextWakeup` came).
  case tick
  /// The shell handled a batch of events: time to draw, once.
  case endOfBatch
  /// Stop: a signal or the terminal asked for it (`reason` is logged as it is).
  case quit(reason: String)
}

/// What the shell knows for a `status` answer and the Session does not.
public struct ShellStatus: Equatable, Sendable {
  public var inputs: [String]
  public var clients: Int
  public var queuedBytes: Int
  /// The `doors` member (`Doors.status`), nil with no `[Door]`.
  public var doors: JSONValue?
  public init(
    inputs: [String] = [], clients: Int = 0, queuedBytes: Int = 0, doors: JSONValue? = nil
  ) {
    self.inputs = inputs
    self.clients = clients
    self.queuedBytes = queuedBytes
    self.doors = doors
  }
}

/// What the `Session` asks the shell to do, in order.
public enum Effect {
  /// A message to every client (the shell encodes it: `OutgoingLines`).
  case broadcast(OutgoingMessage)
  /// A message to one client, by serial number.
  case reply(client: Int, OutgoingMessage)
  /// Writes a `code` line for these digits (and card; empty digits for a card alone) to
  /// every client and answers with `SessionEvent.codeSent`. The Session wipes both once
  /// a client has them.
  case sendCode(id: String, keypad: String, digits: SecretDigits, card: SecretDigits?)
  /// The attempt is decided: a client that has not read its code must not get it.
  case dropUnreadCode(id: String)
  /// A granted verdict decided a still-waiting attempt from `keypad`: its doors open
  /// (docs/protocol.md, "Doors: who may unlock"). Never for a late, repeated or unknown id.
  case attemptGranted(id: String, keypad: String)
  case show(ScreenModel)
  /// Writes the lockout file (`LockoutStore.render` at `now`, the Session's entry time)
  /// and answers with `SessionEvent.lockoutsSaved`.
  case persistLockouts([String: LockoutState], now: Instant)
  /// An sd_notify line (`STATUS=...`, `READY=1`).
  case notify(String)
  /// A log line: names, states and counts, never a digit of a code.
  case log(LogLevel, String)
  /// Inputs and displays take the keypads and entry rules of a reloaded configuration.
  /// Boxed, as `SessionEvent.reload` is: effects stay small.
  indirect case reconfigure(Configuration)
  /// Leave the event loop.
  case stop
}

/// Lockout states read at start (`LockoutStore.parse`).
public struct SavedLockouts: Sendable {
  public var states: [String: LockoutState]
  /// Keypads read from corrupt lines: conservatively locked, forgotten when that ends.
  public var guessed: Set<String>
  /// The file held lines that `states` does not say (corrupt or unreadable): it is
  /// written again at the first save, even when no lockout changed.
  public var fileDiffers: Bool
  public init(
    states: [String: LockoutState] = [:], guessed: Set<String> = [], fileDiffers: Bool = false
  ) {
    self.states = states
    self.guessed = guessed
    self.fileDiffers = fileDiffers
  }
  /// The state a keypad without a line of its own starts with: "*" stands for every
  /// keypad when the file could not be read (or a line's name could not).
  public func state(for keypad: String) -> LockoutState {
    states[keypad] ?? states["*"] ?? LockoutState()
  }
}

extension EntryPhase {
  /// The phase's name in `status` answers.
  public var name: String {
    switch self {
    case .idle: "idle"
    case .entering: "entering"
    case .checking: "checking"
    case .locked: "locked"
    }
  }
}
