import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// The bridge's shell (`pinpadctl mqtt`, `MQTTCommand`): one EventLoop over the
/// broker's socket (`MQTTSession`), the daemon's (`DaemonConnection`), a signalfd and a
/// timer; what to publish and send is decided by `BridgeCore`.
final class Bridge {
  let session: MQTTSession
  let socketPath: String
  let log: Logger
  var core: BridgeCore
  /// The link to the daemon: exists only while the broker connection does (with
  /// `Decide=site`; a door deciding locally keeps it).
  let daemon: DaemonConnection
  var exitCode: Int32? = nil
  /// The MQTT 5 message expiry of code messages: the verdict timeout, in whole seconds.
  let codeExpirySeconds: UInt32
  let mode: Mode

  /// Who decides the codes (`[MQTT] Decide=`).
  enum Mode {
    /// The site: codes are published, verdicts forwarded; the link to the daemon exists
    /// only while the broker connection does.
    case site
    /// The door itself, which keeps its link to the daemon (Bridge+Local.swift).
    case local(LocalDoor)

    /// Whether the link to the daemon stays while the broker is away.
    var keepsDaemon: Bool {
      if case .local = self { true } else { false }
    }

    /// The most a broker may send in one packet.
    var maximumIncomingPacket: UInt32 {
      switch self {
      case .site: Bridge.maximumIncomingPacket
      case .local: Bridge.maximumIncomingPacketLocal
      }
    }
  }

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
    codeExpirySeconds: UInt32, keypads: [String], log: Logger, mode: Mode = .site
  ) {
    self.mode = mode
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
    session.maximumIncomingPacket = mode.maximumIncomingPacket
    session.onConnected = { [unowned self] client in
      let rc = client.subscribeSkippingRetained(core.verdictFilter)
      if rc != 0 {
        log.warning("cannot subscribe to \(core.verdictFilter): \(MQTTClient.describe(rc))")
      }
      subscribeDoorCommands(client)
      if case .local(let door) = mode { localConnected(door, client) }
      connectDaemon(now: Clock.monotonic())
    }
    session.onLost = { [unowned self] in
      switch mode {
      // A door deciding locally stays with its daemon (docs/protocol.md, "Replica").
      case .local(let door): door.brokerLost()
      case .site:
        if daemon.stop() { log.warning("disconnecting from the daemon until the broker is back") }
      }
    }
    session.onIncoming = { [unowned self] message in
      if doorCommand(message) { return }
      if case .local(let door) = mode, localMessage(door, message) { return }
      verdictMessage(message)
    }
  }

  /// Until SIGTERM or SIGINT (exit 0), a refusal by the daemon or a fatal broker error.
  func run(signals: SignalReader) -> Int32 {
    session.start(now: Clock.monotonic())
    connectDaemon(now: Clock.monotonic())
    let loop: ServiceLoop
    do { loop = try ServiceLoop(signals: signals) } catch {
      log.error("epoll: \(error)")
      return ExitCode.failure.rawValue
    }
    do {
      return try loop.run(
        onSignal: shutDown,
        afterEach: {
          afterWakeUp(brokerReadable: loop.brokerReadable, loop: loop)
          return true
        },
        turn: { () throws(Errno) -> ServiceLoop.Next in
          // Whether to stop, then what to watch and when to wake next.
          if let code = ServiceLoop.fatal(session, log) ?? exitCode { return .stop(exitCode: code) }
          try loop.sync(broker: session, daemon: daemon)
          let now = Clock.monotonic()
          var deadlines = [session.nextDeadline, daemon.nextDeadline, core.nextStatusAt]
          if case .local(let door) = mode { deadlines.append(localDeadline(door, now: now)) }
          return .wake(at: ServiceLoop.wake(now: now, deadlines: deadlines))
        })
    } catch {
      log.error("\(error)")
      return ExitCode.failure.rawValue
    }
  }

  /// After each wake-up: the broker's socket, the door's turn, the daemon's socket, then
  /// what is due.
  private func afterWakeUp(brokerReadable: Bool, loop: ServiceLoop) {
    session.pump(readable: brokerReadable)
    if case .local(let door) = mode { localTurn(door) }
    loop.serveDaemon(daemon, read: readDaemon)
    let after = Clock.monotonic()
    if let warning = daemon.report(now: after) { log.warning(warning) }
    session.housekeeping(now: after)
    connectDaemon(now: after)
    perform(core.tick(now: after))
  }

  // MARK: daemon side

  /// Connects to the daemon when its link says it is time, while the broker is there
  /// (or always, for a door deciding locally).
  func connectDaemon(now: Instant) {
    guard session.isConnected || mode.keepsDaemon, let warning = daemon.connectIfDue(now: now)
    else {
      return
    }
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
        switch mode {
        case .site: publishCode(code, line)
        case .local(let door): localCode(door, code, line)
        }
        perform(core.codeTaken())
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
  @discardableResult
  func publishCode(_ code: CodeLine, _ line: UnsafeMutableBufferPointer<UInt8>) -> Bool {
    let topic = core.codeTopic(id: code.id, keypad: code.keypad)
    let rc =
      session.client?.publish(
        topic: topic, payload: UnsafeRawBufferPointer(line), retain: false,
        expirySeconds: codeExpirySeconds) ?? -1
    if rc != 0 {
      log.warning("attempt \(code.id) on keypad \(code.keypad): the code could not be published")
    }
    return rc == 0
  }

  // MARK: broker side

  /// A message under the verdict filter: forwarded to the daemon only when it is no
  /// retained message, fits `BridgeCore.maxVerdictPayload` (checked before reading it),
  /// parses, and comes from the verdict topic of its attempt's own keypad. Every
  /// refusal is one log line with the topic and the reason, never the id or payload.
  func verdictMessage(_ message: MQTTClient.Incoming) {
    guard MQTTTopic.matches(message.topic, filter: core.verdictFilter) else { return }
    forward(message, "verdict", core.verdictLine)
  }

  /// Sends the line `decode` makes of `message` (a verdict or a door command) to the
  /// daemon, unless it is refused before reading (retained, too large), refused by
  /// `decode`, or the daemon is away: then one warning with the topic.
  func forward(
    _ message: MQTTClient.Incoming, _ what: String,
    _ decode: (_ topic: String, _ payload: [UInt8]) -> Result<String, RequestError>
  ) {
    let topic = UntrustedText.escapingControls(message.topic)
    if let problem = BridgeCore.refusalBeforeReading(
      retained: message.retained, size: message.payload.count)
    {
      log.warning("\(topic): \(problem.reason); ignored")
      return
    }
    switch decode(message.topic, Array(message.payload)) {
    case .failure(let problem):
      log.warning("\(topic): \(problem.reason); ignored")
    case .success(let line):
      guard daemon.state.isReady else {
        log.warning("\(topic): not connected to the daemon; \(what) dropped")
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
