import PinpadCore
import PinpadProgram
import PinpadSystem

/// The GPIO lines of every `[Door]`: requested at start (each relay driven locked as it
/// is requested, before any input line), watched through the event loop, checked once
/// a second so a chip that went away is noticed on any kernel, and requested again when
/// it is back. Each `GPIOLine` is the one owner of its descriptor.
final class DoorLines {
  struct Held {
    var relay: GPIOLine
    var contact: GPIOLine?
    var exitButton: GPIOLine?
    /// `Buzzer=`, `LedGranted=`, `LedDenied=`: outputs, inactive when requested.
    var buzzer: GPIOLine? = nil
    var ledGranted: GPIOLine? = nil
    var ledDenied: GPIOLine? = nil
    /// What the feedback outputs show now.
    var shown = Feedback.State.rest
    var outputs: [GPIOLine] { [buzzer, ledGranted, ledDenied].compactMap { $0 } }
    var inputs: [GPIOLine] { [contact, exitButton].compactMap { $0 } }
  }

  private let loop: EventLoop
  private let log: Logger
  private(set) var configs: [DoorConfig]
  private var held: [String: Held] = [:]
  /// A contact or button edge: `door`, which input, its logical level now.
  var onInput: (String, DoorMachine.Input, Bool) -> Void = { _, _, _ in }
  /// A door's lines were lost (`reason`), or requested again (levels of its inputs).
  var onLost: (String, String) -> Void = { _, _ in }
  var onAcquired: (String, Bool?, Bool?) -> Void = { _, _, _ in }
  private let healthTimer: Timer

  /// How often held lines are checked and lost ones requested again.
  static let checkInterval: Duration = .seconds(1)

  /// Requests every door's lines; a line it cannot get fails the start with 69 (after
  /// the relays already taken are driven locked and released).
  init(_ doors: [DoorConfig], loop: EventLoop, log: Logger) throws(StartError) {
    self.loop = loop
    self.log = log
    configs = doors
    do { healthTimer = try Timer() } catch {
      throw .unavailable("doors: cannot create a timer: \(error)")
    }
    for door in doors {
      switch Self.acquire(door) {
      case .success(let lines): held[door.name] = lines
      case .failure(let error):
        lockAll()
        release()
        throw .unavailable(error.description)
      }
    }
  }

  /// Starts watching the inputs and the periodic check; reports each door's levels.
  func start() throws(StartError) {
    do {
      try loop.watch(healthTimer.fd, .readable) { [unowned self] _ in
        self.healthTimer.acknowledge()
        self.check()
      }
    } catch {
      throw .unavailable("doors: cannot watch the timer: \(error)")
    }
    healthTimer.arm(at: Clock.monotonic() + Self.checkInterval, interval: Self.checkInterval)
    for door in configs { watch(door) }
  }

  /// The relay, then the contact and the exit button; one line naming what failed.
  static func acquire(_ door: DoorConfig) -> Result<Held, SystemError> {
    let consumer = "pinpadd-\(door.name)".utf8.prefix(31).map { Character(Unicode.Scalar($0)) }
    let label = String(consumer)
    func locate(_ key: String, _ spec: GPIOLineSpec) -> Result<(String, UInt32), SystemError> {
      switch GPIO.resolve(spec) {
      case .success(let found): return .success((found.path, found.offset))
      case .failure(let error):
        return .failure(.failure("door \(door.name): \(key)=\(spec): \(error)"))
      }
    }
    func failed(_ key: String, _ spec: GPIOLineSpec, _ path: String, _ offset: UInt32, _ e: Errno)
      -> SystemError
    {
      .failure("door \(door.name): cannot get \(key)=\(spec) (\(path) line \(offset)): \(e)")
    }
    let relay: GPIOLine
    switch locate("Relay", door.relay) {
    case .failure(let error): return .failure(error)
    case .success(let (path, offset)):
      do {
        relay = try GPIOLine.output(
          path: path, offset: offset, activeLow: door.relayActiveLow,
          active: door.failMode.relayActive(unlocked: false), consumer: label)
      } catch { return .failure(failed("Relay", door.relay, path, offset, error)) }
    }
    func input(_ key: String, _ spec: GPIOLineSpec?, activeLow: Bool) -> Result<
      GPIOLine?, SystemError
    > {
      guard let spec else { return .success(nil) }
      switch locate(key, spec) {
      case .failure(let error): return .failure(error)
      case .success(let (path, offset)):
        do {
          return .success(
            try GPIOLine.input(path: path, offset: offset, activeLow: activeLow, consumer: label))
        } catch { return .failure(failed(key, spec, path, offset, error)) }
      }
    }
    let contact: GPIOLine?
    switch input("Contact", door.contact, activeLow: door.contactActiveLow) {
    case .failure(let error): return .failure(error)
    case .success(let line): contact = line
    }
    let exitButton: GPIOLine?
    switch input("ExitButton", door.exitButton, activeLow: door.exitButtonActiveLow) {
    case .failure(let error): return .failure(error)
    case .success(let line): exitButton = line
    }
    var held = Held(relay: relay, contact: contact, exitButton: exitButton)
    for (key, spec, activeLow, slot) in [
      ("Buzzer", door.buzzer, door.buzzerActiveLow, \Held.buzzer),
      ("LedGranted", door.ledGranted, door.ledGrantedActiveLow, \Held.ledGranted),
      ("LedDenied", door.ledDenied, door.ledDeniedActiveLow, \Held.ledDenied),
    ] {
      guard let spec else { continue }
      switch locate(key, spec) {
      case .failure(let error):
        Self.release(held)
        return .failure(error)
      case .success(let (path, offset)):
        do {
          held[keyPath: slot] = try GPIOLine.output(
            path: path, offset: offset, activeLow: activeLow, active: false, consumer: label)
        } catch {
          Self.release(held)
          return .failure(failed(key, spec, path, offset, error))
        }
      }
    }
    return .success(held)
  }

  /// Watches a door's inputs and reports its levels now (`onAcquired`).
  private func watch(_ door: DoorConfig) {
    guard let lines = held[door.name] else { return }
    var levels: [Bool?] = []
    for (input, line) in [
      (DoorMachine.Input.contact, lines.contact), (.exitButton, lines.exitButton),
    ] {
      guard let line, let fd = line.fd else {
        levels.append(nil)
        continue
      }
      do {
        try loop.watch(fd, .readable) { [unowned self] events in
          self.edge(door.name, input, line, events)
        }
        levels.append(try line.get())
      } catch {
        lost(door.name, "\(error)")
        return
      }
    }
    onAcquired(door.name, levels[0], levels[1])
  }

  private func edge(
    _ door: String, _ input: DoorMachine.Input, _ line: GPIOLine, _ events: EventPoll.Events
  ) {
    do {
      if !events.isDisjoint(with: [.hangup, .error]) { throw Errno.noDevice }
      _ = try line.drainEvents()
      onInput(door, input, try line.get())
    } catch {
      lost(door, "\(error)")
    }
  }

  /// Drives a door's relay; a failure loses the door (it is reported, never a crash).
  func drive(_ door: String, unlocked: Bool) {
    guard let lines = held[door], let config = configs.first(where: { $0.name == door }) else {
      return
    }
    do {
      try lines.relay.set(config.failMode.relayActive(unlocked: unlocked))
    } catch {
      lost(door, "\(error)")
    }
  }

  /// Shows a door's feedback (pinpadd.conf(5), Buzzer=, LedGranted=, LedDenied=): only
  /// the lines that change are written; a failure loses the door.
  func show(_ door: String, _ state: Feedback.State) {
    guard var lines = held[door] else { return }
    do {
      if let line = lines.ledGranted, lines.shown.grantedLight != state.grantedLight {
        try line.set(state.grantedLight)
      }
      if let line = lines.ledDenied, lines.shown.deniedLight != state.deniedLight {
        try line.set(state.deniedLight)
      }
      if let line = lines.buzzer, (lines.shown.toneHz != 0) != (state.toneHz != 0) {
        try line.set(state.toneHz != 0)
      }
      lines.shown = state
      held[door] = lines
    } catch {
      lost(door, "\(error)")
    }
  }

  /// Every held relay driven locked, the feedback outputs inactive (before exit; errors
  /// are only logged).
  func lockAll() {
    for config in configs {
      guard let lines = held[config.name] else { continue }
      do { try lines.relay.set(config.failMode.relayActive(unlocked: false)) } catch {
        log.error("door \(config.name): cannot drive the relay locked: \(error)")
      }
      for line in lines.outputs {
        do { try line.set(false) } catch {
          log.error("door \(config.name): cannot drive a feedback output inactive: \(error)")
        }
      }
      held[config.name]?.shown = .rest
    }
  }

  /// Held lines still answer; lost doors are requested again.
  private func check() {
    for config in configs {
      if let lines = held[config.name] {
        do { _ = try lines.relay.get() } catch { lost(config.name, "\(error)") }
      } else if case .success(let lines) = Self.acquire(config) {
        held[config.name] = lines
        log.info("door \(config.name): GPIO lines requested again, relay locked")
        watch(config)
      }
    }
  }

  private func lost(_ door: String, _ reason: String) {
    guard let lines = held.removeValue(forKey: door) else { return }
    unwatchAndRelease(lines)
    onLost(door, reason)
  }

  private func unwatchAndRelease(_ lines: Held) {
    for line in lines.inputs {
      if let fd = line.fd { loop.unwatch(fd) }
    }
    Self.release(lines)
  }

  /// Gives a door's lines back (its inputs unwatched first, by the caller).
  private static func release(_ lines: Held) {
    for line in lines.inputs + lines.outputs { line.release() }
    lines.relay.release()
  }

  var lostDoors: [String] { configs.map(\.name).filter { held[$0] == nil } }

  /// Unwatches and releases every line (after `lockAll`).
  func release() {
    for (_, lines) in held { unwatchAndRelease(lines) }
    held = [:]
    loop.unwatch(healthTimer.fd)
  }
}
