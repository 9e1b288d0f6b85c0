import PinpadCore

/// Drives a `Session` as the daemon's shell would, with a manual monotonic clock, from
/// a script in the style of `EntryScript`: whitespace-separated steps.
///
/// - `1`, `KP1`, `ENTER`…: press and release a key on the current keypad (`KP1:1` only
///   the press). `keypad=door`: later keys come from keypad `door`.
/// - `+0.5`: time passes. `@5`: 5 s after the start. `tick`; `wait`: time jumps to
///   `nextWakeup` and ticks there. `stamp=20`: later keys are stamped 20 s ahead of
///   the clock (a fast replay).
/// - `clients=N`: N clients connected (codes go to them when sent); `ready`: a client
///   finished connecting.
/// - `granted`, `denied`: a verdict from client 1 for the last code sent; `granted:ID`.
/// - `pad:5`, `pad:ok`, `pad:bs`: a tap on that on-screen key (`pad+:5` down, `pad~:-`
///   moved off, `pad-:5` up); `lost`: the pointer went away. `dropped`: SYN_DROPPED.
/// - `status`: client 1 asks; `end`: end of a batch (frames); `quit`.
/// - `card:0012` the current keypad's card reader types 0012 and Enter (all at one
///   instant, as fast as a reader); `rd:A` one key on the reader (press and release);
///   `rdropped`: the reader lost events. `granted!`: a granted verdict with duress.
///
/// Every effect is answered as the shell answers it: `sendCode` with `codeSent` (taken
/// by every connected client), `persistLockouts` with `lockoutsSaved` (failing with
/// `saveFailure` while it is set), fed after the rest of the effects, as the shell
/// queues them. Logs and frames are kept apart from the trace.
struct SessionScript {
  static let start = Instant(nanoseconds: 1_000 * 1_000_000_000)

  var session: Session
  var now = SessionScript.start
  var keypad = "default"
  var stampLead: Duration = .zero
  var clients = 0
  var saveFailure: String? = nil
  /// The digits sent to clients, by attempt id (what the shell wrote into a line).
  private(set) var sent:
    [(id: String, digits: String, buffer: SecretDigits, card: String?, cardBuffer: SecretDigits?)] =
      []
  private(set) var logs: [(LogLevel, String)] = []
  private(set) var frames: [ScreenModel] = []
  private(set) var persisted: [[String: LockoutState]] = []
  /// The messages to every client, and those to one, as the session said them (ids
  /// real, not aliased).
  private(set) var broadcasts: [OutgoingMessage] = []
  private(set) var replies: [(client: Int, message: OutgoingMessage)] = []
  /// The events that answering effects caused, fed after the current effect list.
  private var caused: [SessionEvent] = []
  private(set) var trace: [String] = []
  /// Attempt ids are 32 random hex digits; the trace, logs and replies show them as
  /// `ab-1`, `ab-2` ... in the order they first appear, and steps take those names.
  private var aliases: [String: String] = [:]
  private var realIDs: [String: String] = [:]
  /// `attemptGranted` effects, and the doors they were handed to (as the daemon does).
  private(set) var grants: [(id: String, keypad: String)] = []
  var doors: Doors? = nil
  private(set) var doorEffects: [Doors.Effect] = []

  init(
    _ edit: (inout Configuration) -> Void = { _ in }, saved: SavedLockouts = SavedLockouts(),
    persistent: Bool = true, random: any RandomNumberGenerator = SystemRandomNumberGenerator()
  ) {
    var config = Configuration()
    config.entry = .testing()
    config.lockout = .testing()
    edit(&config)
    session = Session(
      settings: .init(version: "9.9.9", persistent: persistent),
      config: config, saved: saved, random: random, idRandom: SeededRandom(state: 7))
  }

  /// Seconds since the start.
  func at(_ seconds: String) -> Instant { Self.start + .nanoseconds(nanoseconds(seconds)) }

  var lastSentID: String? { sent.last?.id }
  /// The real id behind an alias such as `ab-1` (itself when it is no alias).
  func id(_ alias: String) -> String { realIDs[alias] ?? alias }

  /// `text` with every attempt id (a run of exactly 32 hex digits) by its alias.
  private mutating func aliased(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    var i = 0
    func isHex(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) || (0x61...0x66).contains(b) }
    while i < bytes.count {
      var j = i
      while j < bytes.count, isHex(bytes[j]) { j += 1 }
      if j - i == AttemptBook.idLength {
        let real = String(decoding: bytes[i..<j], as: UTF8.self)
        let alias = aliases[real] ?? "ab-\(aliases.count + 1)"
        aliases[real] = alias
        realIDs[alias] = real
        out += Array(alias.utf8)
      } else {
        out += bytes[i..<max(j, i + 1)]
      }
      i = max(j, i + 1)
    }
    return String(decoding: out, as: UTF8.self)
  }
  var lastFrame: ScreenModel? { frames.last }
  /// The last `status` answer.
  var lastStatus: StatusReport? {
    replies.lazy.compactMap { if case .status(let report) = $0.message { report } else { nil } }
      .last
  }
  func logged(_ text: String) -> Bool { logs.contains { $0.1.contains(text) } }

  /// Runs the steps; returns the effects they caused (logs and frames left out).
  @discardableResult
  mutating func run(_ script: String) -> String {
    let before = trace.count
    for step in script.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      perform(String(step))
    }
    return trace[before...].joined(separator: " ")
  }

  /// Hands one event to the session and answers its effects.
  @discardableResult
  mutating func send(_ event: SessionEvent) -> String {
    let before = trace.count
    var queue = [event]
    var effects: [Effect] = []
    while !queue.isEmpty {
      session.handle(queue.removeFirst(), now: now, into: &effects)
      for effect in effects { answer(effect) }
      effects.removeAll()
      queue += caused
      caused = []
    }
    return trace[before...].joined(separator: " ")
  }

  private mutating func perform(_ step: String) {
    let stamp = now + stampLead
    switch step {
    case "tick": send(.tick)
    case "wait":
      guard let wakeup = session.nextWakeup else { return }
      now = max(now, wakeup)
      send(.tick)
    case "ready": send(.clientReady)
    case "granted", "denied":
      send(.verdict(id: lastSentID ?? "none", granted: step == "granted", message: nil, client: 1))
    case "granted!":
      send(
        .verdict(id: lastSentID ?? "none", granted: true, message: nil, duress: true, client: 1))
    case "rdropped": send(.cardDropped(keypad: keypad))
    case "dropped": send(.dropped(keypad: keypad, stamp: stamp))
    case "lost": send(.pointerLost)
    case "status": send(.status(client: 1, ShellStatus(inputs: ["auto"], clients: clients)))
    case "end": send(.endOfBatch)
    case "quit": send(.quit(reason: "stopping on request"))
    default:
      if step.hasPrefix("+") {
        now = now + .nanoseconds(nanoseconds(String(step.dropFirst())))
      } else if step.hasPrefix("@") {
        now = at(String(step.dropFirst()))
      } else if let value = step.value(of: "keypad=") {
        keypad = value
      } else if let value = step.value(of: "clients=") {
        clients = Int(value)!
      } else if let value = step.value(of: "stamp=") {
        stampLead = .nanoseconds(nanoseconds(value))
      } else if let value = step.value(of: "granted:") ?? step.value(of: "denied:") {
        send(
          .verdict(id: id(value), granted: step.hasPrefix("granted"), message: nil, client: 1))
      } else if let value = step.value(of: "card:") {
        for name in value.map({ "KP" + String($0) }) + ["ENTER"] {
          send(.cardKey(keypad: keypad, key(name), value: 1, stamp: stamp))
          send(.cardKey(keypad: keypad, key(name), value: 0, stamp: stamp))
        }
      } else if let value = step.value(of: "rd:") {
        send(.cardKey(keypad: keypad, key(value), value: 1, stamp: stamp))
        send(.cardKey(keypad: keypad, key(value), value: 0, stamp: stamp))
      } else if step.hasPrefix("pad") {
        let parts = step.split(separator: ":")
        let key = padKey(String(parts[1]))
        switch parts[0] {
        case "pad+": send(.padPress(keypad: "", .pressed(x: 1, y: 1), key: key, stamp: stamp))
        case "pad~": send(.padPress(keypad: "", .moved(x: 1, y: 1), key: key, stamp: stamp))
        case "pad-": send(.padPress(keypad: "", .released(x: 1, y: 1), key: key, stamp: stamp))
        default:
          send(.padPress(keypad: "", .pressed(x: 1, y: 1), key: key, stamp: stamp))
          send(.padPress(keypad: "", .released(x: 1, y: 1), key: key, stamp: stamp))
        }
      } else {
        let parts = step.split(separator: ":")
        let code = key(String(parts[0]))
        if parts.count == 2 {
          send(.key(keypad: keypad, code, value: Int32(parts[1])!, stamp: stamp))
        } else {
          send(.key(keypad: keypad, code, value: 1, stamp: stamp))
          send(.key(keypad: keypad, code, value: 0, stamp: stamp))
        }
      }
    }
  }

  private func padKey(_ name: String) -> PadKey? {
    switch name {
    case "ok": .ok
    case "bs": .backspace
    case "-": nil
    default: .digit(UInt8(name)!)
    }
  }

  /// What the shell does with an effect, in words for the trace.
  private mutating func answer(_ effect: Effect) {
    switch effect {
    case .broadcast(let message):
      broadcasts.append(message)
      trace.append(aliased(Self.words(message)))
    case .reply(let client, let message):
      replies.append((client, message))
      trace.append(aliased("reply#\(client):" + Self.words(message)))
    case .sendCode(let id, let keypad, let digits, let card):
      if clients > 0 { sent.append((id, string(digits), digits, card.map(string), card)) }
      trace.append(aliased("code(\(id),\(keypad))"))
      caused.append(.codeSent(id: id, clients: clients, connected: clients))
    case .dropUnreadCode(let id): trace.append(aliased("drop(\(id))"))
    case .attemptGranted(let id, let keypad):
      grants.append((id, keypad))
      if doors != nil { doorEffects += doors!.granted(id: id, keypad: keypad, now: now) }
    case .show(let model): frames.append(model)
    case .persistLockouts(let states, let at):
      persisted.append(states)
      let lines = states.keys.sorted().map { name in
        let state = states[name]!
        let locked = state.lockedUntil.map { $0 > at } ?? false
        return "\(name)=\(state.failures)/\(state.level)\(locked ? "/locked" : "")"
      }
      trace.append("persist(\(lines.joined(separator: ",")))")
      caused.append(.lockoutsSaved(failure: saveFailure))
    case .notify(let line): trace.append(aliased("notify(\(line))"))
    case .log(let level, let line): logs.append((level, aliased(line)))
    case .reconfigure: trace.append("reconfigure")
    case .stop: trace.append("stop")
    }
  }

  /// A message in words: `entry(default,started,1)`, `verdict(ab-1,granted)`,
  /// `lockout(default,30)`, `keypad(door,added,/dev/x,keypad)`, `error(reason)`, `status`.
  static func words(_ message: OutgoingMessage) -> String {
    switch message {
    case .entry(let keypad, let event, let length): "entry(\(keypad),\(event.rawValue),\(length))"
    case .verdict(let id, let result, let reason):
      "verdict(\(id),\(result.rawValue)\(reason.map { "," + $0 } ?? ""))"
    case .lockout(let keypad, let seconds): "lockout(\(keypad),\(seconds))"
    case .keypad(let name, let added, let device, let role):
      "keypad(\(name),\(added ? "added" : "removed"),\(device),\(role.rawValue))"
    case .error(let reason): "error(\(reason))"
    case .alarm(let reason, let keypad, let id): "alarm(\(reason),\(keypad),\(id))"
    case .door(let door, let event, let by):
      "door(\(door),\(event.rawValue)\(by.map { "," + $0.text } ?? ""))"
    case .status: "status"
    }
  }
}

extension String {
  fileprivate func value(of prefix: String) -> String? {
    hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
  }
}

/// A generator that always gives the same sequence (scrambled layouts in tests).
struct SeededRandom: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }
}
