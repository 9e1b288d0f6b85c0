import PinpadCore
import PinpadInput
import PinpadProgram
import PinpadSystem

/// Inputs whose devices can show a keypad's feedback (pinpadd.conf(5), Feedback=).
protocol FeedbackDevices: AnyObject {
  /// Every open keypad and card-reader device (no pointer), with its keypad.
  var feedbackDevices: [(keypad: String, device: EvdevDevice)] { get }
}

/// The keypads' feedback beside the Session (pinpadd.conf(5), Feedback=): `FeedbackCues`
/// says which keypad an effect is for and what it plays, one `Feedback` per keypad holds
/// its pattern, and this writes what changes to the keypad's LEDs and beeper, and hands
/// each keypad's state to the doors' lines (`onState`).
final class FeedbackControl {
  private var cues = FeedbackCues()
  private var patterns: [String: Feedback] = [:]
  private var keypads: [KeypadConfig]
  private var doors: [DoorConfig]
  private let log: Logger
  private let clock: () -> Instant
  /// What was last written to each device, by node.
  private var written: [String: Written] = [:]
  /// The devices to write to (set once the inputs are open).
  var devices: () -> [(keypad: String, device: EvdevDevice)] = { [] }
  /// Each keypad's state when it may have changed (the doors' Buzzer= and LEDs).
  var onState: (_ keypad: String, Feedback.State) -> Void = { _, _ in }

  private struct Written {
    let device: EvdevDevice
    var light: Bool?
    var tone: Int32 = 0
    var failed = false
  }

  init(keypads: [KeypadConfig], doors: [DoorConfig], log: Logger, clock: @escaping () -> Instant) {
    self.keypads = keypads
    self.doors = doors
    self.log = log
    self.clock = clock
  }

  /// Feedback=auto, the default (a keypad without a section too).
  func plays(_ keypad: String) -> Bool {
    (keypads.first { $0.name == keypad }?.feedback ?? .auto) == .auto
  }

  /// Whether anything can show feedback: a door with Buzzer=, LedGranted= or LedDenied=,
  /// or a device of a Feedback=auto keypad.
  private var shown: Bool {
    doors.contains { $0.buzzer != nil || $0.ledGranted != nil || $0.ledDenied != nil }
      || devices().contains { plays($0.keypad) }
  }

  /// How long the doors that `keypad` opens stay open: the longest OpenSec, zero for none.
  func openTime(_ keypad: String) -> Duration {
    doors.filter { $0.opens(for: keypad) }.map(\.open).max() ?? .zero
  }

  /// When a keypad's pattern changes next (nil: none plays), worked out whenever the
  /// patterns change: the daemon asks after every batch.
  private(set) var nextDeadline: Instant?

  /// Each effect the daemon performs, before it does: a cue plays at once.
  func observe(_ effect: Effect) {
    switch effect {
    case .broadcast, .sendCode: break
    default: return  // never a cue: no clock read for a screen or a log line
    }
    // Nothing to show a cue on and nothing playing: none is worked out, and no wake-up
    // comes to end one. While one plays, every cue is (a device unplugged meanwhile
    // shows the pattern when it is back).
    guard !patterns.isEmpty || shown else { return }
    let now = clock()
    // Every keypad's pattern is kept (a door's lines show it); only Feedback=auto
    // keypads' devices are written to.
    guard let (keypad, cue) = cues.cue(for: effect, now: now, openTime: openTime) else {
      return
    }
    patterns[keypad, default: Feedback()].cue(cue, at: now)
    apply(now: now, clicked: cue == .key ? keypad : nil)
  }

  /// The deadline timer fired.
  func tick() {
    guard !patterns.isEmpty else { return }
    apply(now: clock(), clicked: nil)
  }

  /// SIGHUP: a keypad switched to Feedback=none shows what it had before, at once (its
  /// pattern still plays on its doors' lines).
  func reconfigure(keypads: [KeypadConfig], doors: [DoorConfig]) {
    self.keypads = keypads
    self.doors = doors
    restore { !plays($0) }
  }

  /// Every Feedback=auto device's feedback LED as it was at open, its beeper silent:
  /// before the inputs close, on every way out.
  func restoreAll() {
    for keypad in patterns.keys { onState(keypad, .rest) }
    patterns = [:]
    nextDeadline = nil
    restore { plays($0) }
  }

  private func restore(_ which: (String) -> Bool) {
    for (keypad, device) in devices() where which(keypad) {
      if let led = device.feedbackLED {
        _ = device.setLED(led, on: device.ledsAtOpen[led] ?? false)
      }
      if device.beeper != nil { _ = device.sound(hz: 0) }
      written[device.path] = nil
    }
  }

  /// Writes each keypad's state at `now` where it changed; `clicked`'s click is written
  /// even when a click still sounds, so each key is heard.
  private func apply(now: Instant, clicked: String?) {
    var seen: Set<String> = []
    for (keypad, device) in devices() where plays(keypad) {
      seen.insert(device.path)
      let state = patterns[keypad]?.state(at: now) ?? .rest
      var entry = written[device.path]
      if entry?.device !== device { entry = Written(device: device) }
      if var entry {
        write(state, to: &entry, keypad: keypad, click: keypad == clicked)
        written[device.path] = entry
      }
    }
    // A device that went away is forgotten (each one seen was written above).
    if written.count > seen.count { written = written.filter { seen.contains($0.key) } }
    for (keypad, feedback) in patterns { onState(keypad, feedback.state(at: now)) }
    // What has ended goes; changed in place (a write while iterating would copy them all).
    var ended = false
    var next: Instant?
    var index = patterns.startIndex
    while index != patterns.endIndex {
      patterns.values[index].settle(at: now)
      ended = ended || patterns.values[index].isIdle
      if let change = patterns.values[index].nextChange(after: now) {
        next = min(next ?? change, change)
      }
      patterns.formIndex(after: &index)
    }
    if ended { patterns = patterns.filter { !$0.value.isIdle } }
    nextDeadline = next
  }

  private func write(_ state: Feedback.State, to entry: inout Written, keypad: String, click: Bool)
  {
    let device = entry.device
    if let led = device.feedbackLED {
      // An LED that was on shows the pattern inverted, so it is seen.
      let original = device.ledsAtOpen[led] ?? false
      let value = original != state.anyLight
      if (entry.light ?? original) != value {
        entry.light = value
        failed(device.setLED(led, on: value), &entry, keypad: keypad)
      }
    }
    if device.beeper != nil, entry.tone != state.toneHz || (click && state.toneHz != 0) {
      entry.tone = state.toneHz
      failed(device.sound(hz: state.toneHz), &entry, keypad: keypad)
    }
  }

  /// A failed write is said once per device; one that went away is no error.
  private func failed(_ error: SystemError?, _ entry: inout Written, keypad: String) {
    guard let error, !entry.failed, error.errno != .noDevice else { return }
    entry.failed = true
    log.warning("keypad \(keypad): cannot show feedback on \(entry.device.path): \(error)")
  }
}
