import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl mqtt`: bridges one daemon to an MQTT broker (docs/protocol.md, "MQTT bridge").
///
/// One thread, one EventLoop (epoll) over the broker socket, the daemon socket, a signalfd
/// and a timer (`WatchSet`).
/// The daemon connection exists only while the broker connection does (docs/protocol.md,
/// "MQTT: connection"): when the broker goes, the bridge hangs up on the daemon at once,
/// so the screen says "unavailable" rather than "no response"; both come back when the
/// broker does.
enum BridgeService {
  static let usage = """
    Usage: pinpadctl [--socket PATH] mqtt [--config FILE]

    Bridges the daemon at PATH (default /run/pinpadd/pinpadd.sock) to the MQTT broker
    of the [MQTT] section in FILE (default /etc/pinpadd/pinpadd.conf and FILE.d/*.conf):
      TOPIC/status          online | offline (retained; offline is the last will)
      TOPIC/KEYPAD/code     each code message, QoS 1, never retained
      TOPIC/KEYPAD/event    entry, verdict, lockout, keypad and alarm messages
      TOPIC/KEYPAD/state    {"phase":...,"attempts_left":N,"locked_seconds":N} (retained)
      TOPIC/KEYPAD/verdict  subscribed: {"id":"ID","result":"granted|denied","message":"..."}
      TOPIC/door/DOOR/event    door messages; TOPIC/door/DOOR/state {"lock":...,"contact":...}
                            (retained); TOPIC/door/DOOR/command subscribed: open
    and, with Discovery=yes, Home Assistant discovery configs under DiscoveryPrefix.
    Exit codes: 78 bad configuration, 69 broker refused the credentials or TLS check.
    """

  static func main(socketPath: String, arguments: [String]) throws -> Int32 {
    var words = Arguments(arguments)
    var configPath = "/etc/pinpadd/pinpadd.conf"
    var configGiven = false
    while let word = words.next() {
      switch word.name {
      case "--help", "-h":
        ControlMain.printLine(usage)
        return 0
      case "--config":
        configPath = try words.value(of: word, missing: "--config needs a file")
        configGiven = true
      default:
        throw UsageError("mqtt [--config FILE] (unexpected \(word.text))")
      }
    }
    let log = Logger(level: .info)
    guard let (config, settings, password) = loadSettings(configPath, required: configGiven)
    else { return ExitCode.config.rawValue }
    let signals = try SignalReader(blocking: [SIGTERM, SIGINT])
    let bridge = Bridge(
      settings: settings, password: password, socketPath: socketPath,
      maxFailures: config.lockout.maxFailures,
      codeExpirySeconds: Bridge.expirySeconds(config.socket.verdictTimeout),
      keypads: config.keypads.isEmpty ? ["default"] : config.keypads.map(\.name), log: log)
    return bridge.run(signals: signals)
  }

  /// The configuration, the checked `[MQTT]` section and the password; nil after
  /// printing the one line that says why not.
  static func loadSettings(_ path: String, required: Bool) -> (
    Configuration, MQTTSettings, SecretPassword?
  )? {
    let config: Configuration
    let settings: MQTTSettings
    do {
      config = try ConfigLoader.load(path: path, required: required)
      guard config.mqtt.isPresent else {
        ControlMain.printError("\(path): no [MQTT] section (Broker= is required)")
        return nil
      }
      settings = try config.mqtt.validated(hostName: HostName.current)
    } catch {
      ControlMain.printError(error.description)
      return nil
    }
    var password: SecretPassword? = nil
    if !settings.passwordFile.isEmpty {
      do { password = try SecretPassword(path: settings.passwordFile) } catch {
        let place = settings.passwordFilePlace ?? ConfigPlace(path: path, line: 0)
        ControlMain.printError(
          "\(place.path):\(place.line): PasswordFile=\(settings.passwordFile): \(error)")
        return nil
      }
    }
    return (config, settings, password)
  }
}

private final class Bridge {
  let session: MQTTSession
  let socketPath: String
  let log: Logger
  var core: BridgeCore
  /// The link to the daemon: exists only while the broker connection does.
  let daemon: DaemonConnection
  var exitCode: Int32? = nil
  /// The MQTT 5 message expiry of code messages: the verdict timeout, in whole seconds.
  let codeExpirySeconds: UInt32

  /// VerdictTimeoutSec rounded up to whole seconds (at least 1), MQTT's unit.
  static func expirySeconds(_ timeout: Duration) -> UInt32 {
    let (seconds, attoseconds) = timeout.components
    return UInt32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
  }

  /// The most a broker may send the bridge in one packet: a verdict payload of
  /// `BridgeCore.maxVerdictPayload` with room for its topic and headers.
  static let maximumIncomingPacket = UInt32(BridgeCore.maxVerdictPayload + 4096)

  init(
    settings: MQTTSettings, password: SecretPassword?, socketPath: String, maxFailures: Int,
    codeExpirySeconds: UInt32, keypads: [String], log: Logger
  ) {
    self.socketPath = socketPath
    daemon = DaemonConnection(path: socketPath)
    self.log = log
    self.codeExpirySeconds = codeExpirySeconds
    core = BridgeCore(
      topic: settings.topic, discovery: settings.discovery,
      discoveryPrefix: settings.discoveryPrefix, maxFailures: maxFailures,
      version: pinpaddVersion, keypads: keypads)
    session = MQTTSession(
      settings: settings, password: password, will: (settings.topic + "/status", "offline"),
      log: log, name: settings.clientID)
    // MQTT 5 for message expiry on codes, the broker keeping large packets to itself,
    // retained verdicts never sent, and "session taken over" said by the broker.
    session.version = .v5
    session.maximumIncomingPacket = Bridge.maximumIncomingPacket
    session.onConnected = { [unowned self] client in
      let rc = client.subscribeSkippingRetained(core.verdictFilter)
      if rc != 0 {
        log.warning("cannot subscribe to \(core.verdictFilter): \(MQTTClient.describe(rc))")
      }
      subscribeDoorCommands(client)
      connectDaemon(now: Clock.monotonic())
    }
    session.onLost = { [unowned self] in
      if daemon.stop() { log.warning("disconnecting from the daemon until the broker is back") }
    }
    session.onIncoming = { [unowned self] message in
      if doorCommand(message) { return }
      verdictMessage(message)
    }
  }

  func run(signals: SignalReader) -> Int32 {
    session.start(now: Clock.monotonic())
    let watches: WatchSet
    var signalled = false
    do {
      watches = try WatchSet()
      try watches.loop.watch(signals.fd, .readable) { _ in signalled = true }
    } catch {
      log.error("epoll: \(error)")
      return ExitCode.failure.rawValue
    }
    var result: Int32 = 0
    // After each wake-up (a descriptor ready, or the timer): whether to stop, then what
    // to watch and when to wake next.
    func turn() -> Bool {
      if let fatal = session.fatal {
        log.error(fatal)
        result = ExitCode.unavailable.rawValue
        return false
      }
      if let exitCode {
        result = exitCode
        return false
      }
      let daemonWatch = daemon.fd.map {
        WatchSet.Want(
          fd: $0.rawValue, generation: daemon.generation,
          events: daemon.wantsWrite ? [.readable, .writable] : .readable)
      }
      do { try watches.sync([.broker: session.watch, .daemon: daemonWatch]) } catch {
        log.error("epoll: \(error)")
        result = ExitCode.failure.rawValue
        return false
      }
      let now = Clock.monotonic()
      let deadlines = [
        session.nextDeadline, daemon.nextDeadline, core.nextStatusAt,
      ].compactMap { $0 }
      // Idle: wake for the keepalive only (a third of it), nothing else.
      var timeout = Duration.seconds(Int64(MQTTClient.keepAliveSeconds)) / 3
      if let soonest = deadlines.min() {
        timeout = min(timeout, max(.zero, soonest - now) + .milliseconds(1))
      }
      watches.wake(at: now + timeout)
      return true
    }
    guard turn() else { return result }
    do {
      try watches.loop.run {
        if signalled {
          signalled = false
          for signal in signals.read() where signal == SIGTERM || signal == SIGINT {
            shutDown()
            result = 0
            watches.loop.stop()
            return
          }
        }
        let broker = watches.ready[.broker] ?? []
        session.pump(readable: !broker.isDisjoint(with: [.readable, .error, .hangup]))
        let fromDaemon = watches.ready[.daemon] ?? []
        if fromDaemon.contains(.writable) { daemon.flush() }
        if !fromDaemon.subtracting(.writable).isEmpty { readDaemon() }
        let after = Clock.monotonic()
        if let warning = daemon.report(now: after) { log.warning(warning) }
        session.housekeeping(now: after)
        if session.isConnected { connectDaemon(now: after) }
        perform(core.tick(now: after))
        if !turn() { watches.loop.stop() }
      }
    } catch {
      log.error("epoll: \(error)")
      return ExitCode.failure.rawValue
    }
    return result
  }

  // MARK: daemon side

  /// Connects to the daemon when its link says it is time, while the broker is there.
  func connectDaemon(now: Instant) {
    guard session.isConnected, let warning = daemon.connectIfDue(now: now) else { return }
    log.warning(warning)
  }

  func readDaemon() {
    daemon.read(now: Clock.monotonic()) { event in
      switch event {
      case .greeted:
        log.info("connected to the daemon at \(socketPath)")
        perform(core.daemonConnected())
      case .refused(let reason):
        log.error("\(socketPath): \(reason)")
        exitCode = ExitCode.unavailable.rawValue
      case .malformed(let problem):
        log.warning(BridgeCore.describe(problem))
      case .line(.code(let code), let line):
        publishCode(code, line)
      case .line(let message, let line):
        perform(
          core.daemonMessage(
            message, line: String(decoding: line, as: UTF8.self), now: Clock.monotonic()))
      case .lost(let wasReady):
        log.warning("disconnected from \(socketPath); reconnecting")
        if wasReady { perform(core.daemonLost()) }
      }
    }
  }

  /// A `code` line: its bytes go out as they are and are zeroed with the reader's
  /// buffer; the id and keypad are the only members that are Strings.
  func publishCode(_ code: CodeLine, _ line: UnsafeMutableBufferPointer<UInt8>) {
    let topic = core.codeTopic(id: code.id, keypad: code.keypad)
    let rc =
      session.client?.publish(
        topic: topic, payload: UnsafeRawBufferPointer(line), retain: false,
        expirySeconds: codeExpirySeconds) ?? -1
    if rc != 0 {
      log.warning("attempt \(code.id) on keypad \(code.keypad): the code could not be published")
    }
  }

  // MARK: broker side

  /// A message under the verdict filter: forwarded to the daemon only when it is no
  /// retained message, fits `BridgeCore.maxVerdictPayload` (checked before reading it),
  /// parses, and comes from the verdict topic of its attempt's own keypad. Every
  /// refusal is one log line with the topic and the reason, never the id or payload.
  func verdictMessage(_ message: MQTTClient.Incoming) {
    let topic = UntrustedText.escapingControls(message.topic)
    guard MQTTTopic.matches(message.topic, filter: core.verdictFilter) else { return }
    if let problem = BridgeCore.refusalBeforeReading(
      retained: message.retained, size: message.payload.count)
    {
      log.warning("\(topic): \(problem.reason); ignored")
      return
    }
    switch core.verdictLine(topic: message.topic, payload: Array(message.payload)) {
    case .failure(let problem):
      log.warning("\(topic): \(problem.reason); ignored")
    case .success(let line):
      guard daemon.state.isReady else {
        log.warning("\(topic): not connected to the daemon; verdict dropped")
        return
      }
      sendToDaemon(line)
    }
  }

  /// Queues `line` for the daemon and writes what its socket takes now.
  func sendToDaemon(_ line: String) {
    if let warning = daemon.send(line, now: Clock.monotonic()) { log.warning(warning) }
  }

  func perform(_ actions: [BridgeCore.Action]) {
    for action in actions {
      switch action {
      case .publish(let topic, let payload, let retain):
        if let client = session.client, session.isConnected {
          let rc = client.publish(topic: topic, text: payload, retain: retain)
          if rc != 0 { log.warning("cannot publish to \(topic): \(MQTTClient.describe(rc))") }
        }
      case .sendToDaemon(let line):
        sendToDaemon(line)
      case .warn(let text):
        log.warning(text)
      }
    }
  }

  func shutDown() {
    if session.isConnected, let client = session.client {
      client.publish(topic: core.statusTopic, text: "offline", retain: true)
    }
    daemon.stop()
    session.close()
    log.info("stopped")
  }
}

// MARK: doors (docs/protocol.md, "MQTT: door topics"): TOPIC/door/NAME/command takes `open`

extension Bridge {
  func subscribeDoorCommands(_ client: MQTTClient) {
    let rc = client.subscribeSkippingRetained(core.doorCommandFilter)
    if rc != 0 {
      log.warning("cannot subscribe to \(core.doorCommandFilter): \(MQTTClient.describe(rc))")
    }
  }

  /// A message on a door's command topic: forwarded as an `open` request, unless it is
  /// retained (a stored "open" would open the door at every reconnect) or too large.
  /// False for other topics.
  func doorCommand(_ message: MQTTClient.Incoming) -> Bool {
    guard MQTTTopic.matches(message.topic, filter: core.doorCommandFilter) else { return false }
    let topic = UntrustedText.escapingControls(message.topic)
    if let problem = BridgeCore.refusalBeforeReading(
      retained: message.retained, size: message.payload.count)
    {
      log.warning("\(topic): \(problem.reason); ignored")
      return true
    }
    switch core.doorCommandLine(topic: message.topic, payload: Array(message.payload)) {
    case .failure(let problem):
      log.warning("\(topic): \(problem.reason); ignored")
    case .success(let line):
      guard daemon.state.isReady else {
        log.warning("\(topic): not connected to the daemon; command dropped")
        return true
      }
      sendToDaemon(line)
    }
    return true
  }
}
