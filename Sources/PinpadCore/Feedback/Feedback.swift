/// What a keypad shows and sounds back (pinpadd.conf(5), `Feedback=`; `[Door]` `Buzzer=`,
/// `LedGranted=`, `LedDenied=`): a pure value. The shell tells it what happened
/// (`cue(_:at:)`), asks what the outputs are at a moment (`state(at:)`) and when that
/// changes next (`nextChange(after:)`), and writes only the changes to LEDs, beepers and
/// GPIO lines.
///
/// Nothing here knows a digit: a right and a wrong digit are the same `key` cue, and a
/// duress grant is the same `granted` cue as any grant.
public struct Feedback: Equatable, Sendable {
  /// What happened at the keypad.
  public enum Cue: Equatable, Sendable {
    /// A key the entry took (a digit, backspace, clear, Enter): a short click.
    case key
    /// A granted verdict, duress too: the granted light for `open` (the door's open
    /// time, or 2 s), a rising two-tone.
    case granted(open: Duration)
    /// A denied verdict: the denied light blinks three times, a low long tone.
    case denied
    /// A lockout until `until`: the denied light blinks slowly until then.
    case locked(until: Instant)
    /// The lockout ended early (cleared, reloaded): its light goes out.
    case unlocked
  }

  /// The outputs at one moment. `toneHz` 0 is silence; a beeper with only SND_BELL (or a
  /// GPIO buzzer) sounds while it is not 0.
  public struct State: Equatable, Sendable {
    public var grantedLight: Bool
    public var deniedLight: Bool
    public var toneHz: Int32
    public init(grantedLight: Bool = false, deniedLight: Bool = false, toneHz: Int32 = 0) {
      self.grantedLight = grantedLight
      self.deniedLight = deniedLight
      self.toneHz = toneHz
    }
    /// All off: what the device had before is shown again.
    public static let rest = State()
    /// A keypad with one LED shows either light on it.
    public var anyLight: Bool { grantedLight || deniedLight }
    /// What a door shows for the keypads that open it: a light if any keypad shows it,
    /// the highest tone sounding (a buzzer sounds while any does).
    public static func combined(_ states: some Sequence<State>) -> State {
      states.reduce(into: .rest) {
        $0.grantedLight = $0.grantedLight || $1.grantedLight
        $0.deniedLight = $0.deniedLight || $1.deniedLight
        $0.toneHz = max($0.toneHz, $1.toneHz)
      }
    }
  }

  /// The pattern's timings, the same for every keypad and door.
  public enum Timing {
    public static let click: Duration = .milliseconds(25)
    public static let clickHz: Int32 = 2000
    public static let grantTones: [(Duration, Int32)] = [
      (.milliseconds(120), 1000), (.milliseconds(180), 1500),
    ]
    public static let denyTone: (Duration, Int32) = (.milliseconds(700), 300)
    public static let denyBlink: Duration = .milliseconds(200)
    public static let denyBlinks = 3
    public static let lockoutBlink: Duration = .milliseconds(500)
    /// A grant's light when the keypad opens no door of its own.
    public static let grantLight: Duration = .seconds(2)
  }

  /// A run of steps from `start`, each a value held for a length; after the last, off.
  /// Lengths are in nanoseconds: a `Duration`'s are a 128-bit division, and a keypad's
  /// pattern is read at every cue and every change.
  private struct Steps<Value: Equatable & Sendable>: Equatable, Sendable {
    var start: Instant
    var values: [Value]
    var lengths: [Int64]
    /// The lengths' sum.
    var period: Int64
    /// Repeats the steps until `until` (a lockout's slow blink); nil: once.
    var until: Instant?

    init(start: Instant, values: [Value], lengths: [Int64], until: Instant? = nil) {
      self.start = start
      self.values = values
      self.lengths = lengths
      period = lengths.reduce(Int64(0)) { $0.saturatingAdd($1) }
      self.until = until
    }

    static func == (a: Steps, b: Steps) -> Bool {
      a.start == b.start && a.values == b.values && a.lengths == b.lengths && a.until == b.until
    }

    /// The value at `now` (nil: before the start, or after the end) and when it changes.
    func at(_ now: Instant) -> (value: Value?, next: Instant?) {
      guard now >= start else { return (nil, start) }
      guard period > 0 else { return (nil, nil) }
      var offset = now.nanoseconds.saturatingSubtract(start.nanoseconds)
      var base = start
      if let until {
        guard now < until else { return (nil, nil) }
        let cycles = offset / period
        base = start.adding(nanoseconds: cycles.saturatingMultiply(period))
        offset -= cycles.saturatingMultiply(period)
      } else if offset >= period {
        return (nil, nil)
      }
      var edge = base
      for (value, length) in zip(values, lengths) {
        edge = edge.adding(nanoseconds: length)
        if offset < length {
          return (value, until.map { min(edge, $0) } ?? edge)
        }
        offset -= length
      }
      return (nil, nil)
    }
  }

  /// The steps that are the same at every cue, made once (a cue shares them).
  private enum Pattern {
    static let click: [Int64] = [Timing.click.nanoseconds]
    static let clickTone: [Int32] = [Timing.clickHz]
    static let grantLight: [State] = [State(grantedLight: true)]
    static let grantTones: [Int32] = Timing.grantTones.map(\.1)
    static let grantToneLengths: [Int64] = Timing.grantTones.map(\.0.nanoseconds)
    // on, off, on, off, on: then back to what the device showed before.
    static let denyBlinks: [State] = (0..<(2 * Timing.denyBlinks - 1)).map {
      $0 % 2 == 0 ? State(deniedLight: true) : .rest
    }
    static let denyBlinkLengths: [Int64] = Array(
      repeating: Timing.denyBlink.nanoseconds, count: 2 * Timing.denyBlinks - 1)
    static let denyTone: [Int32] = [Timing.denyTone.1]
    static let denyToneLength: [Int64] = [Timing.denyTone.0.nanoseconds]
    static let lockoutBlink: [State] = [State(deniedLight: true), .rest]
    static let lockoutBlinkLengths: [Int64] = [
      Timing.lockoutBlink.nanoseconds, Timing.lockoutBlink.nanoseconds,
    ]
  }

  private var light: Steps<State>? = nil
  private var sound: Steps<Int32>? = nil

  public init() {}

  /// Takes what happened at `now`: a new sound replaces the one playing, a new light
  /// pattern the one showing (a key's click leaves the light alone).
  public mutating func cue(_ cue: Cue, at now: Instant) {
    switch cue {
    case .key:
      sound = Steps(start: now, values: Pattern.clickTone, lengths: Pattern.click)
    case .granted(let open):
      let length = open > .zero ? open : Timing.grantLight
      light = Steps(start: now, values: Pattern.grantLight, lengths: [length.nanoseconds])
      sound = Steps(start: now, values: Pattern.grantTones, lengths: Pattern.grantToneLengths)
    case .denied:
      light = Steps(start: now, values: Pattern.denyBlinks, lengths: Pattern.denyBlinkLengths)
      sound = Steps(start: now, values: Pattern.denyTone, lengths: Pattern.denyToneLength)
    case .locked(let until):
      guard until > now else {
        light = nil
        return
      }
      light = Steps(
        start: now, values: Pattern.lockoutBlink, lengths: Pattern.lockoutBlinkLengths,
        until: until)
    case .unlocked:
      if light?.until != nil { light = nil }
    }
  }

  /// The outputs at `now`.
  public func state(at now: Instant) -> State {
    var state = light?.at(now).value ?? .rest
    state.toneHz = sound?.at(now).value ?? 0
    return state
  }

  /// The next moment after `now` at which `state` may change; nil when nothing plays.
  public func nextChange(after now: Instant) -> Instant? {
    let light = self.light?.at(now).next.flatMap { $0 > now ? $0 : nil }
    let sound = self.sound?.at(now).next.flatMap { $0 > now ? $0 : nil }
    guard let light, let sound else { return light ?? sound }
    return min(light, sound)
  }

  /// Drops patterns that have ended, so an idle keypad holds none (`isIdle`).
  public mutating func settle(at now: Instant) {
    if let light, light.at(now).next == nil { self.light = nil }
    if let sound, sound.at(now).next == nil { self.sound = nil }
  }

  /// Nothing showing or sounding, and nothing to come.
  public var isIdle: Bool { light == nil && sound == nil }
}
