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
  private let events: [RecordedEvent]
  private let fast: Bool
  private let path: String
  private var timer: Timer?
  private var loop: EventLoop?
  private var next = 0
  private var start = Instant.zero

  /// Reads and parses the recording now, so a bad file fails the start.
  public init(path: String, fast: Bool, keypad: String, keypads: [KeypadConfig] = [])
    throws(InputError)
  {
    self.path = path
    self.fast = fast
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path) } catch { throw InputError(error.description) }
    let text = String(decoding: bytes, as: UTF8.self)
    do {
      events = try EvemuRecording.parse(text, path: path)
    } catch {
      throw InputError(error.description)
    }
    let reader = KeypadMatcher(keypads: keypads).keypad(
      for: EvemuRecording.device(text, path: path),
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
      let event = events[next]
      let time = start + event.time
      if let now, time > now { break }
      next += 1
      switch (event.type, event.code) {
      case (1, _) where isCardReader:
        deliver(.cardKey(KeyCode(event.code), value: event.value, time: time))
      case (1, _): deliver(.key(KeyCode(event.code), value: event.value, time: time))
      case (0, 3) where isCardReader: deliver(.cardDropped)
      case (0, 3): deliver(.dropped(time: time))  // EV_SYN / SYN_DROPPED
      default: break
      }
    }
    arm()
  }

  private func arm() {
    guard let timer else { return }
    timer.arm(at: next < events.count ? start + events[next].time : nil)
  }

  public func close() {
    if let timer, let loop { loop.unwatch(timer.fd) }
    timer = nil
  }
}
