import PinpadCore
import PinpadSystem

/// `--input replay:FILE` and `replay-fast:FILE`: an evemu-record recording played
/// into the daemon as if typed on a keypad. With recorded timing each event is given
/// at its recorded offset from the start; fast mode gives them all at once but still
/// stamps them with the recorded offsets, so bursts and timeouts are judged the same.
/// The daemon keeps running after the recording ends.
///
/// A recording whose device (its `N:` name, `I:` ids) matches a section's `CardReader=`
/// is played as that keypad's card reader; any other feeds the default keypad.
public final class ReplayInput: InputSource {
  public let keypad: String
  public let isCardReader: Bool
  public var name: String { (fast ? "replay-fast:" : "replay:") + path }
  private let events: [Step]
  private let fast: Bool
  private let path: String
  private var timer: Timer?
  private var loop: EventLoop?
  private var next = 0
  private var start = Instant.zero

  /// Reads and parses the recording now, so a bad file fails the start. The file is
  /// parsed as it is read and only the events a replay acts on are kept.
  public init(path: String, fast: Bool, keypad: String, keypads: [KeypadConfig] = [])
    throws(InputError)
  {
    self.path = path
    self.fast = fast
    var steps: [Step] = []
    var parser = EvemuParser(path: path)
    var failure: RecordingError? = nil
    // The device description (N:, I:) heads the file: its first chunk holds it.
    var device: DeviceIdentity? = nil
    do {
      try FileSystem.readChunks(path) { chunk in
        if device == nil {
          device = EvemuRecording.device(chunk, path: path)
        }
        // Closures written out at each call (not a local function) are known not to
        // escape, so appending to `steps` needs no run-time exclusivity check.
        do throws(RecordingError) {
          try parser.feed(chunk) { if let step = Step($0) { steps.append(step) } }
        } catch {
          failure = error
          return false
        }
        return true
      }
    } catch {
      throw InputError(error.description)
    }
    if failure == nil {
      do throws(RecordingError) {
        try parser.finish { if let step = Step($0) { steps.append(step) } }
      } catch { failure = error }
    }
    if let failure { throw InputError(failure.description) }
    events = steps
    let reader = KeypadMatcher(keypads: keypads).keypad(
      for: device ?? DeviceIdentity(devnode: path),
      capabilities: DeviceCapabilities(hasDigitKeys: true))
    isCardReader = reader?.isCardReader ?? false
    self.keypad = isCardReader ? reader!.name : keypad
  }

  public func start(
    loop: EventLoop, deliver: @escaping (_ keypad: String, SourceEvent) -> Void
  ) throws(InputError) {
    let keypad = self.keypad
    let deliver: (SourceEvent) -> Void = { deliver(keypad, $0) }
    self.loop = loop
    start = Clock.monotonic()
    if fast {
      loop.defer { [self] in self.play(until: nil, deliver) }
      return
    }
    do {
      let timer = try Timer()
      try loop.watch(timer.fd, .readable) { [unowned self, unowned timer] _ in
        timer.acknowledge()
        self.play(until: Clock.monotonic(), deliver)
      }
      self.timer = timer
      arm()
    } catch {
      throw InputError("replay \(path): \(error)")
    }
  }

  private func play(until now: Instant?, _ deliver: (SourceEvent) -> Void) {
    while next < events.count {
      let step = events[next]
      let time = start.adding(nanoseconds: step.offset)
      if let now, time > now { break }
      next += 1
      switch (step.isKey, isCardReader) {
      case (true, true): deliver(.cardKey(KeyCode(step.code), value: step.value, time: time))
      case (true, false): deliver(.key(KeyCode(step.code), value: step.value, time: time))
      case (false, true): deliver(.cardDropped)
      case (false, false): deliver(.dropped(time: time))
      }
    }
    arm()
  }

  private func arm() {
    guard let timer else { return }
    timer.arm(
      at: next < events.count
        ? start.adding(nanoseconds: events[next].offset) : nil)
  }

  public func close() {
    if let timer, let loop { loop.unwatch(timer.fd) }
    timer = nil
  }
}

/// A replayed event in 16 bytes: a key (EV_KEY) or a SYN_DROPPED, the only events a
/// replay gives the daemon; the others of a recording are not kept.
private struct Step {
  /// Nanoseconds from the recording's first event.
  var offset: Int64
  var value: Int32
  var code: UInt16
  var isKey: Bool

  init?(_ event: RecordedEvent) {
    switch (event.type, event.code) {
    case (1, _): isKey = true  // EV_KEY
    case (0, 3): isKey = false  // EV_SYN / SYN_DROPPED
    default: return nil
    }
    offset = event.nanoseconds
    value = event.value
    code = event.code
  }
}
