import Glibc
import PinpadCore
import PinpadDaemon
import PinpadSystem

/// `pinpadctl serve --codes FILE --mqtt`: answers the codes of every device on the
/// broker (SPEC §8.3). Subscribes to `--topics FILTER` (default `pinpadd/+/+/code`) and
/// publishes each verdict to the `verdict` topic beside the code's. The codes file is
/// the one of the local `serve`, checked by the same rules (a code, a card, or both on
/// one line; `"duress":true` in a duress line's verdict); the payload that held the
/// code and card is zeroed in libmosquitto's buffer once checked.
enum FleetController {
  static let defaultFilter = "pinpadd/+/+/code"

  static func run(
    codes initial: WatchedCodesFile, verifier: CodeVerifier, filter: String, configPath: String,
    configGiven: Bool
  ) throws -> Int32 {
    if let problem = MQTTTopic.problemAsCodeFilter(filter) { throw UsageError(problem) }
    var codes = initial
    guard
      let (_, settings, password) = BridgeService.loadSettings(configPath, required: configGiven)
    else { return 78 }
    let log = Logger(level: .info)
    let signals = try SignalReader(blocking: [SIGTERM, SIGINT])
    // Its own client id, so it can run beside the bridge of the same host.
    let session = MQTTSession(
      settings: settings, password: password, will: nil, log: log,
      name: settings.clientID + "-serve")
    session.onConnected = { client in
      let rc = client.subscribe(filter)
      if rc != 0 { log.warning("cannot subscribe to \(filter): \(MQTTClient.describe(rc))") }
    }
    var pending: [(topic: String, payload: String, lines: [String])] = []
    session.onMessage = { topic, payload in
      defer { if let base = payload.baseAddress { explicitZero(base, payload.count) } }
      guard MQTTTopic.matches(topic, filter: filter),
        let verdictTopic = MQTTTopic.verdictTopic(forCodeTopic: topic)
      else { return }
      let line = UnsafeBufferPointer(payload.bindMemory(to: UInt8.self))
      guard let fields = JSONFields(line), let id = fields.text("id", in: line),
        fields.range(of: "code") != nil || fields.range(of: "card") != nil
      else {
        log.warning("\(topic): not a code message; ignored")
        return
      }
      let match = ControllerService.decide(fields, line, codes: &codes, verifier: verifier)
      let answer = JSONValue.object(ControllerService.verdictMembers(id, match))
      let logged = ControllerService.logLines(id: id, place: String(topic.dropLast(5)), match)
      pending.append((verdictTopic, answer.serialized, logged))
    }
    session.start(now: Clock.monotonic())
    while true {
      if let fatal = session.fatal {
        log.error(fatal)
        return 69
      }
      var entries = [pollfd(fd: signals.fd.rawValue, events: Int16(POLLIN), revents: 0)]
      let brokerIndex = session.pollEntry.map {
        entries.append($0)
        return entries.count - 1
      }
      var timeout = Int32(MQTTClient.keepAliveSeconds) * 1000 / 3
      if let due = session.nextDeadline {
        let ms = max(0, (due - Clock.monotonic()).nanoseconds / 1_000_000 + 1)
        timeout = min(timeout, Int32(clamping: ms))
      }
      do { _ = try syscall { poll(&entries, nfds_t(entries.count), timeout) } } catch {
        throw SystemError("poll", error)
      }
      if entries[0].revents != 0, !signals.read().isEmpty {
        session.close()
        return 0
      }
      session.pump(
        readable: brokerIndex.map { entries[$0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 }
          ?? false)
      // Verdicts are published outside libmosquitto's callback.
      for item in pending {
        if let client = session.client, session.isConnected {
          client.publish(topic: item.topic, text: item.payload, retain: false)
          for line in item.lines {
            if line.hasPrefix("warning: ") {
              log.warning(String(line.dropFirst(9)))
            } else {
              log.info(line)
            }
          }
        }
      }
      pending.removeAll()
      session.pump(readable: false)
      session.housekeeping(now: Clock.monotonic())
    }
  }
}
