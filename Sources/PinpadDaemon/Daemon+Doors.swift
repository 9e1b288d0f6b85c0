import PinpadCore
import PinpadSystem

/// The `[Door]`s beside the Session (docs/protocol.md, "Doors"): the Session says which
/// attempt was granted, `Doors` decides, `DoorLines` drives and reads the GPIO lines.
extension Daemon {
  /// Requests every door's lines, relays locked first. Called before anything else is set up.
  func openDoors() throws(StartError) {
    guard !config.doors.isEmpty else { return }
    let lines = try DoorLines(config.doors, loop: loop, log: log)
    lines.onInput = { [unowned self] door, input, active in
      self.perform(self.doors.line(door: door, input, active: active, now: clock()))
    }
    lines.onLost = { [unowned self] door, reason in
      self.perform(self.doors.linesLost(door: door, reason: reason))
    }
    lines.onAcquired = { [unowned self] door, contact, exit in
      self.perform(
        self.doors.linesAcquired(
          door: door, contactActive: contact, exitActive: exit, now: clock()))
    }
    doorLines = lines
    for door in config.doors {
      log.info(
        "door \(door.name): relay \(door.relay!) locked (FailMode=\(door.failMode.rawValue))")
    }
    try lines.start()
  }

  func perform(_ effects: [Doors.Effect]) {
    for effect in effects {
      switch effect {
      case .relay(let door, let unlocked):
        doorLines?.drive(door, unlocked: unlocked)
        doors.relayDriven(door: door, unlocked: unlocked, now: clock())
      case .broadcast(let message): broadcast(message)
      case .log(let level, let line): log.log(level, line)
      }
    }
  }

  /// A client's `open`: the door, or an error reply naming no code or secret.
  func openDoor(_ name: String, from client: SocketClient) {
    guard let machine = doors.machine(name) else {
      reply(.error("no door named \(name)"), to: client)
      return
    }
    guard machine.linesHeld else {
      reply(.error("door \(name): its GPIO lines are lost"), to: client)
      return
    }
    let effects = doors.remoteOpen(door: name, now: clock()) ?? []
    log.info("door \(name): open asked by client \(client.serial)")
    perform(effects)
  }

  func doorTick() {
    guard !doors.isEmpty else { return }
    perform(doors.tick(now: clock()))
  }

  /// Every relay driven locked: first thing on every way out.
  func lockDoors() {
    doorLines?.lockAll()
  }

  /// The lines given back to the kernel: last thing on every way out (after
  /// `lockDoors`). Releasing a line that watches edges runs the GPIO driver's
  /// irq_shutdown, and one driver in Debian 12's kernel (hid-cp2112, the USB GPIO bridge
  /// of the QEMU tests) sleeps there under a spinlock when its poll work is running:
  /// "BUG: scheduling while atomic", after which the kernel refuses this process's page
  /// faults (SIGSEGV). After the lines, the process only returns and exits.
  func releaseDoorLines() {
    doorLines?.release()
    doorLines = nil
  }
}
