import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl serve --codes FILE --mqtt`: answers the codes of every device on the
/// broker (docs/protocol.md, "Fleet controller"). Subscribes to `--topics FILTER`
/// (default `pinpadd/+/+/code`) and publishes each verdict to the `verdict` topic beside
/// the code's. The codes file is the one of the local `serve`, checked by the same rules
/// (a code, a card, or both on one line; `"duress":true` in a duress line's verdict); the
/// payload that held the code and card is zeroed in libmosquitto's buffer once checked.
/// Its own lockout per DEVICE/KEYPAD (`Controller`, file `fleet-lockout` in the state
/// directory) denies with `"reason":"locked"` unchecked; a payload over `maxPayload` is
/// dropped unparsed; what it logs of a topic or id is cleaned (`UntrustedText`), and
/// lines about junk messages are rate-limited (`JunkLog`). With `--sign-key` its
/// `SiteService` takes the site's topics and runs after each turn of the loop.
final class FleetController {
  static let defaultFilter = "pinpadd/+/+/code"
  /// Payloads over 64 KiB are dropped unparsed (docs/protocol.md, "Fleet: topics"). A
  /// code message is under 300 bytes.
  static let maxPayload = 64 * 1024

  let filter: String
  let log: Logger
  let controller: Controller
  let site: SiteService?
  let session: MQTTSession
  private var junk = JunkLog()
  /// The verdicts decided in libmosquitto's callback, published after it (`publishPending`).
  private var pending: [(topic: String, payload: String, lines: [LogLine])] = []

  /// What `serve --mqtt` gives the fleet controller (pinpadctl(1), serve).
  struct Options {
    /// `--topics`: the code messages it answers.
    var filter = FleetController.defaultFilter
    /// The configuration with `[MQTT]` and `[Lockout]`; `configRequired` when named.
    var configPath: String
    var configRequired: Bool
    /// The codes file's tag key, which a site's replicas carry (`--key`, else the one
    /// beside the codes file).
    var tagKeyPath: String
    var globalBound: ControllerLockout.GlobalBound
    var keepDays: Int
  }

  /// Runs the fleet controller of `serve --mqtt`.
  /// With `signKey` (`--sign-key`) it is also the site of doors that decide by themselves
  /// (`SiteService`).
  static func run(
    _ options: Options, codes: WatchedCodesFile, verifier: CodeVerifier,
    stateDirectory: String, signKey: Ed25519SigningKey? = nil
  ) throws -> Int32 {
    let filter = options.filter
    if let problem = MQTTTopic.problemAsCodeFilter(filter) { throw UsageError(problem) }
    guard
      let (config, settings, password) = MQTTLogin.load(
        options.configPath, required: options.configRequired)
    else { return ExitCode.config.rawValue }
    let log = Logger(level: .info)
    let controller = try Controller.open(
      codes: codes, verifier: verifier, directory: stateDirectory, lockoutFile: "fleet-lockout",
      rules: config.lockout, globalBound: options.globalBound, keepDays: options.keepDays
    ) { log.log($0.level, $0.text) }
    var site: SiteService? = nil
    if let signKey {
      do {
        site = try SiteService(
          key: signKey, controller: controller, codesFilter: filter,
          tagKeyPath: options.tagKeyPath, log: log)
      } catch {
        log.error("\(error)")
        return ExitCode.unavailable.rawValue
      }
    }
    let signals = try SignalReader(blocking: [SIGTERM, SIGINT])
    // Its own client id, so it can run beside the bridge of the same host.
    let session = MQTTSession(
      settings: settings, password: password, will: site == nil ? nil : SiteService.will, log: log,
      name: settings.clientID + "-serve")
    let fleet = FleetController(
      filter: filter, log: log, controller: controller, site: site, session: session)
    return try fleet.run(signals: signals)
  }

  private init(
    filter: String, log: Logger, controller: Controller, site: SiteService?,
    session: MQTTSession
  ) {
    self.filter = filter
    self.log = log
    self.controller = controller
    self.site = site
    self.session = session
    // The broker sends nothing larger than a code message could need (MQTT 5); what
    // still comes over the bound (an MQTT 3 broker) is dropped unread (`incoming`).
    session.version = .v5
    session.maximumIncomingPacket = UInt32(Self.maxPayload + 1024)
    session.onConnected = { [unowned self] client in connected(client) }
    session.onIncoming = { [unowned self] message in incoming(message) }
  }

  /// Until SIGTERM or SIGINT, or a fatal broker error (exit 69).
  private func run(signals: SignalReader) throws -> Int32 {
    session.start(now: Clock.monotonic())
    let loop = try ServiceLoop(signals: signals)
    return try loop.run(
      onSignal: shutDown,
      afterEach: {
        afterWakeUp(brokerReadable: loop.brokerReadable)
        return true
      },
      turn: { () throws(Errno) -> ServiceLoop.Next in
        if let code = ServiceLoop.fatal(session, log) { return .stop(exitCode: code) }
        try loop.sync(broker: session)
        let deadlines = [session.nextDeadline, site?.nextDeadline]
        return .wake(at: ServiceLoop.wake(now: Clock.monotonic(), deadlines: deadlines))
      })
  }

  /// A (re)connection to the broker: the code filter subscribed, and the site's topics.
  private func connected(_ client: MQTTClient) {
    // Retained code messages are never sent for this subscription, and one published
    // retained while subscribed arrives with its retain flag (refused in `incoming`).
    let rc = client.subscribeSkippingRetained(filter)
    if rc != 0 { log.warning("cannot subscribe to \(filter): \(MQTTClient.describe(rc))") }
    site?.connected(client)
  }

  /// A message from the broker (inside libmosquitto's callback): the site's, or a code
  /// message to answer; its payload is zeroed in libmosquitto's buffer after.
  private func incoming(_ message: MQTTClient.Incoming) {
    let (topic, payload) = (message.topic, message.payload)
    defer { if let base = payload.baseAddress { explicitZero(base, payload.count) } }
    let shownTopic = UntrustedText.sanitized(topic, maxBytes: 128)
    if let site, site.take(topic: topic, payload: payload) { return }
    guard payload.count <= Self.maxPayload else {
      junk.say(
        "\(shownTopic): a payload of \(payload.count) bytes (over 64 KiB); dropped unread", log)
      return
    }
    guard MQTTTopic.matches(topic, filter: filter),
      let verdictTopic = MQTTTopic.verdictTopic(forCodeTopic: topic)
    else { return }
    // A retained code (left by a buggy or hostile publisher) would be decided again at
    // every subscription, spending a use each time: never decided, never answered.
    if message.retained {
      junk.say("\(shownTopic): a retained code message is never decided; ignored", log)
      return
    }
    let line = payload.bindMemory(to: UInt8.self)
    guard case .success(let code) = CodeLine.decode(payload: UnsafeBufferPointer(line)) else {
      junk.say("\(shownTopic): not a code message; ignored", log)
      return
    }
    answer(code, in: line, topic: topic, verdictTopic: verdictTopic)
  }

  /// A code message on `topic`, decoded from `line`: its verdict queued for
  /// `verdictTopic`, with the lines to log once it is published.
  private func answer(
    _ code: CodeLine, in line: UnsafeMutableBufferPointer<UInt8>, topic: String,
    verdictTopic: String
  ) {
    // The place of the lockout: DEVICE/KEYPAD as in the topic (without /code).
    let place = String(topic.dropLast(5))
    let shownPlace = UntrustedText.sanitized(place, maxBytes: 256)
    let levels = shownPlace.split(separator: "/", omittingEmptySubsequences: false)
    let device = levels.count >= 2 ? String(levels[levels.count - 2]) : nil
    let attempt = Attempt(
      code, in: line, device: device, keypad: levels.last.map(String.init) ?? shownPlace,
      place: shownPlace)
    // An id already decided for this place (a QoS 1 duplicate, a replay) gets the
    // verdict it had: no second decision, no use spent, no log row.
    if let earlier = controller.earlierDecision(attempt) {
      pending.append((verdictTopic, earlier.verdict(id: code.id).verdictPayload ?? "", []))
      junk.say(
        "\(shownPlace): attempt \(attempt.id) was decided before; its verdict sent again", log)
      return
    }
    let decision = controller.answer(attempt)
    let answer = decision.verdict(id: code.id).verdictPayload ?? ""
    let logged = decision.logLines(
      id: attempt.id,
      place: UntrustedText.sanitized(place, maxBytes: 128))
    // A denial's line is logged like junk (a flood of denials while locked must not
    // flood the log); a warning (DURESS) always gets out, after its verdict.
    let limited = decision.granted ? [] : logged.filter { $0.level < .warning }
    pending.append((verdictTopic, answer, logged.filter { !limited.contains($0) }))
    for line in limited { junk.say(line.text, log) }
  }

  /// After each wake-up: the broker's socket, the verdicts decided, the site's turn.
  private func afterWakeUp(brokerReadable: Bool) {
    session.pump(readable: brokerReadable)
    publishPending()
    site?.turn(session.client, connected: session.isConnected)
    session.pump(readable: false)
    session.housekeeping(now: Clock.monotonic())
  }

  /// Verdicts are published outside libmosquitto's callback, each with its log lines.
  private func publishPending() {
    for item in pending {
      if let client = session.client, session.isConnected {
        client.publish(topic: item.topic, text: item.payload, retain: false)
        for line in item.lines { log.log(line.level, line.text) }
      }
    }
    pending.removeAll()
  }

  /// SIGTERM or SIGINT: the site says it goes, the session ends.
  private func shutDown() {
    if let site, let client = session.client, session.isConnected { site.closing(client) }
    session.close()
  }
}

/// Lines about messages that are not answered (junk, oversized, locked out): the first
/// `burst` at once, then one every `interval`; what was held back is counted in the next
/// line that gets out, so a flood costs a few log lines, not one per message.
struct JunkLog {
  static let burst = 10
  static let interval: Duration = .seconds(10)
  private var allowance = JunkLog.burst
  private var refilled: Instant? = nil
  private var held = 0

  mutating func say(_ line: String, _ log: Logger, now: Instant = Clock.monotonic()) {
    if let refilled, now - refilled >= JunkLog.interval {
      allowance = JunkLog.burst
      self.refilled = now
    } else if refilled == nil {
      refilled = now
    }
    guard allowance > 0 else {
      held += 1
      return
    }
    allowance -= 1
    let more = held > 0 ? " (and \(held) such lines held back)" : ""
    held = 0
    log.warning(line + more)
  }
}
