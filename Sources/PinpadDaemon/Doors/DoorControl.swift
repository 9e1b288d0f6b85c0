import PinpadCore
import PinpadProgram
import PinpadSystem

/// The `[Door]`s beside the Session (docs/protocol.md, "Doors"): the Session says which
/// attempt was granted, `Doors` decides, `DoorLines` drives and reads the GPIO lines,
/// and this carries out what `Doors` asks (relays, broadcasts, log lines).
final class DoorControl {
  /// Asked for its deadline after every batch.
  private(set) var doors: Doors
  private var lines: DoorLines?
  private let log: Logger
  private let clock: () -> Instant
  /// Each keypad's feedback that is not at rest (a door shows its keypads' combined).
  private var keypadFeedback: [String: Feedback.State] = [:]
  /// Where a door's messages go (every client).
  var broadcast: (OutgoingMessage) -> Void = { _ in }

  init(_ config: [DoorConfig], log: Logger, clock: @escaping () -> Instant) {
    doors = Doors(config)
    self.log = log
    self.clock = clock
  }

  var nextDeadline: Instant? { doors.nextDeadline }
  /// The `doors` member of a `status` answer, nil with no `[Door]`.
  var status: JSONValue? { doors.isEmpty ? nil : doors.status }

  /// Requests every door's lines, relays locked first: called before anything else is
  /// set up.
  func open(_ config: [DoorConfig], loop: EventLoop) throws(StartError) {
    guard !config.isEmpty else { return }
    let lines = try DoorLines(config, loop: loop, log: log)
    lines.onInput = { [unowned self] door, input, active in
      self.perform(self.doors.line(door: door, input, active: active, now: self.clock()))
    }
    lines.onLost = { [unowned self] door, reason in
      self.perform(self.doors.linesLost(door: door, reason: reason))
    }
    lines.onAcquired = { [unowned self] door, contact, exit in
      self.perform(
        self.doors.linesAcquired(
          door: door, contactActive: contact, exitActive: exit, now: self.clock()))
    }
    self.lines = lines
    for door in config {
      log.info(
        "door \(door.name): relay \(door.relay) locked (FailMode=\(door.failMode.rawValue))")
    }
    try lines.start()
  }

  /// A granted verdict decided a waiting attempt from `keypad`: its doors open.
  func granted(id: String, keypad: String) {
    perform(doors.granted(id: id, keypad: keypad, now: clock()))
  }

  /// A client's `open`: nil when the door opens, else the error to answer (naming no
  /// code or secret).
  func open(door name: String, client serial: Int) -> String? {
    guard let machine = doors.machine(name) else { return "no door named \(name)" }
    guard machine.linesHeld else { return "door \(name): its GPIO lines are lost" }
    let effects = doors.remoteOpen(door: name, now: clock()) ?? []
    log.info("door \(name): open asked by client \(serial)")
    perform(effects)
    return nil
  }

  /// A keypad's feedback changed (or may have): the doors it opens show it, combined
  /// with their other keypads' (pinpadd.conf(5), Buzzer=, LedGranted=, LedDenied=).
  func feedback(keypad: String, _ state: Feedback.State) {
    guard let lines else { return }
    keypadFeedback[keypad] = state == .rest ? nil : state
    for door in lines.configs where door.opens(for: keypad) {
      lines.show(
        door.name,
        .combined(keypadFeedback.filter { door.opens(for: $0.key) }.values))
    }
  }

  /// The deadline timer fired: whatever of the doors is due.
  func tick() {
    guard !doors.isEmpty else { return }
    perform(doors.tick(now: clock()))
  }

  /// Every relay driven locked: first thing on every way out.
  func lockAll() {
    lines?.lockAll()
  }

  /// The lines given back to the kernel: last thing on every way out (after
  /// `lockAll`). Releasing a line that watches edges runs the GPIO driver's
  /// irq_shutdown, and one driver in Debian 12's kernel (hid-cp2112, the USB GPIO bridge
  /// of the QEMU tests) sleeps there under a spinlock when its poll work is running:
  /// "BUG: scheduling while atomic", after which the kernel refuses this process's page
  /// faults (SIGSEGV). After the lines, the process only returns and exits.
  func release() {
    lines?.release()
    lines = nil
  }

  private func perform(_ effects: [Doors.Effect]) {
    for effect in effects {
      switch effect {
      case .relay(let door, let unlocked):
        lines?.drive(door, unlocked: unlocked)
        doors.relayDriven(door: door, unlocked: unlocked, now: clock())
      case .broadcast(let message): broadcast(message)
      case .log(let level, let line): log.log(level, line)
      }
    }
  }
}
