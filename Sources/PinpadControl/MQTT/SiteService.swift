import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// What `serve --mqtt --sign-key KEY` adds to the fleet controller (docs/protocol.md,
/// "Replica"; pinpadctl(1)): the doors' signed replicas, the site's status, and the
/// doors' own logs. The decisions (which device needs a replica, which log entry to
/// store) are values (`SiteReplicas`, `LogReceipts`); this class does the I/O: it reads
/// the codes file every `codesCheck`, builds, signs, commits (the generation) and
/// publishes the replicas, stores the log entries in the access log and acks them.
final class SiteService {
  /// The codes file is checked for a change this often (a revocation reaches the doors
  /// within 2 s).
  static let codesCheck: Duration = .milliseconds(250)
  /// Log entries taken per turn of the loop at most; more wait for the door to resend.
  static let maxEntriesPerTurn = 8192

  let key: Ed25519SigningKey
  let controller: Controller
  let log: Logger
  /// The `--topics` filter without `/+/code`: `pinpadd/+`.
  let devices: String
  /// The tag key file whose bytes go into each replica, when the site has one.
  let tagKeyPath: String?
  private var replicas: SiteReplicas
  private var receipts: LogReceipts
  /// False after a failed commit until `receipts` is read again from the database (no
  /// entry is taken meanwhile: the doors send them again).
  private var receiptsRead = true
  private var codesSeen: UInt64
  private var nextCodesCheck = Clock.monotonic()
  /// Whether the last turn was connected: the codes file is checked at once on a
  /// (re)connection, so the replicas then sent hold what changed while it was away.
  private var wasConnected = false
  /// Entries received since the last turn: (device name, entry).
  private var entries: [(device: String, entry: LogEntry)] = []
  /// The device topics whose log was written to since the last turn, with the log ids.
  private var toAck: [String: Set<String>] = [:]
  private var junk = JunkLog()
  /// The access log would not take the last replica or entries: said once until it does.
  private var outage = Outage()

  init(
    key: Ed25519SigningKey, controller: Controller, codesFilter: String, tagKeyPath: String?,
    log: Logger
  ) throws(AccessLog.Failure) {
    self.key = key
    self.controller = controller
    self.log = log
    self.tagKeyPath = tagKeyPath
    devices = SiteReplicas.deviceFilter(codes: codesFilter)
    replicas = SiteReplicas(generations: try controller.accessLog.replicaGenerations())
    receipts = LogReceipts(restoring: try controller.accessLog.logReceipts())
    codesSeen = controller.codesChanges
  }

  /// The site's last will: `offline` on its status topic, retained.
  static let will = (SiteTopics.siteStatus, "offline")

  /// Once connected: the topics it listens to, then its status. In that order: a door
  /// sends its unacknowledged log again when the site says online (docs/protocol.md,
  /// "Replica: the door's log"), and the broker handles one client's packets in order,
  /// so what the door sends then finds the site subscribed (online first lost an entry
  /// now and then).
  func connected(_ client: MQTTClient) {
    let filters = [SiteTopics.status(devices), devices + "/+/state", SiteTopics.log(devices)]
    for filter in filters {
      let rc = client.subscribe(filter)
      if rc != 0 { log.warning("cannot subscribe to \(filter): \(MQTTClient.describe(rc))") }
    }
    client.publish(topic: SiteTopics.siteStatus, text: "online", retain: true)
    replicas.reconnected()
  }

  /// Before a clean exit: the site goes offline.
  func closing(_ client: MQTTClient) {
    client.publish(topic: SiteTopics.siteStatus, text: "offline", retain: true)
  }

  /// A message from the broker: whether it was one of the site's (a device's status, a
  /// keypad's state, a log entry); those are taken, the others left to the caller.
  func take(topic: String, payload: UnsafeMutableRawBufferPointer) -> Bool {
    guard let kind = SiteReplicas.classify(topic, devices: devices) else { return false }
    let bytes = UnsafeRawBufferPointer(payload)
    switch kind {
    case .status(let deviceTopic):
      let online = bytes.elementsEqual("online".utf8)
      if !replicas.status(deviceTopic: deviceTopic, online: online), online {
        junk.say("\(shown(topic)): one device too many; ignored", log)
      }
    case .keypadState(let deviceTopic, let keypad):
      if !replicas.keypad(deviceTopic: deviceTopic, keypad: keypad, present: !bytes.isEmpty),
        !bytes.isEmpty
      {
        junk.say("\(shown(topic)): one keypad too many; ignored", log)
      }
    case .log(let deviceTopic):
      takeLog(topic: topic, deviceTopic: deviceTopic, bytes)
    }
    return true
  }

  private func shown(_ topic: String) -> String { UntrustedText.sanitized(topic, maxBytes: 128) }

  /// One entry of a door's log: a door writes only its own log (the entry's device is
  /// the topic's), and each (device, log, seq) is stored once (`LogReceipts`).
  private func takeLog(topic: String, deviceTopic: String, _ bytes: UnsafeRawBufferPointer) {
    guard bytes.count <= FleetController.maxPayload, let entry = LogEntry(json: bytes) else {
      junk.say("\(shown(topic)): not a log entry; ignored", log)
      return
    }
    let device = SiteTopics.deviceName(deviceTopic)
    guard entry.device == device else {
      junk.say("\(shown(topic)): an entry of another device's log; refused", log)
      return
    }
    guard receiptsRead, entries.count < Self.maxEntriesPerTurn else { return }
    switch receipts.receive(device: device, log: entry.log, seq: entry.seq) {
    case .store:
      var kept = entry
      kept.keypad = UntrustedText.sanitized(entry.keypad, maxBytes: LogEntry.maxNameBytes)
      kept.person = entry.person.map {
        UntrustedText.sanitized($0, maxBytes: LogEntry.maxNameBytes)
      }
      entries.append((device, kept))
      toAck[deviceTopic, default: []].insert(entry.log)
    case .duplicate, .refused:
      toAck[deviceTopic, default: []].insert(entry.log)
    }
  }

  /// After each turn of the loop: the log entries committed then acked, the codes file
  /// checked, and the replicas due published.
  func turn(_ client: MQTTClient?, connected: Bool) {
    storeAndAck(connected ? client : nil)
    if !receiptsRead { rereadReceipts() }
    let now = Clock.monotonic()
    if now >= nextCodesCheck || (connected && !wasConnected) {
      nextCodesCheck = now + Self.codesCheck
      controller.reloadCodes()
      if controller.codesChanges != codesSeen {
        codesSeen = controller.codesChanges
        replicas.codesChanged()
      }
    }
    wasConnected = connected
    if let client, connected { publishDue(client) }
  }

  private func rereadReceipts() {
    guard let stored = try? controller.accessLog.logReceipts() else { return }
    receipts = LogReceipts(restoring: stored)
    receiptsRead = true
  }

  /// When the loop must wake next at the latest.
  var nextDeadline: Instant { nextCodesCheck }

  private func storeAndAck(_ client: MQTTClient?) {
    guard !toAck.isEmpty else { return }
    let acks = toAck.flatMap { deviceTopic, logs in
      logs.map {
        (deviceTopic, receipts.ack(device: SiteTopics.deviceName(deviceTopic), log: $0))
      }
    }
    if !entries.isEmpty {
      do {
        try controller.accessLog.commitLocal(
          entries,
          receipts: acks.map { (SiteTopics.deviceName($0.0), $0.1.log, $0.1.upto) })
        recovered()
      } catch {
        failed("\(error); the doors' log entries are taken when they are sent again")
        // What is stored is what the database says: the door sends the rest again.
        receiptsRead = false
        rereadReceipts()
        entries.removeAll()
        toAck.removeAll()
        return
      }
    }
    entries.removeAll()
    toAck.removeAll()
    guard let client else { return }
    for (deviceTopic, ack) in acks where ack.upto > 0 {
      client.publish(topic: SiteTopics.logAck(deviceTopic), text: ack.json, retain: false)
    }
  }

  /// Builds, signs, commits and publishes the replicas due.
  private func publishDue(_ client: MQTTClient) {
    let nowMs = Clock.wallNanoseconds() / 1_000_000
    let due = replicas.due(nowMs: nowMs)
    guard !due.isEmpty else { return }
    var tagKey: [UInt8]? = nil
    defer { if var bytes = tagKey { explicitZero(&bytes, bytes.count) } }
    if controller.verifier.key != nil, let path = tagKeyPath {
      tagKey = try? TagKeyFile.loadBytes(path)
    }
    let codes = controller.codes
    for deviceTopic in due {
      let device = SiteTopics.deviceName(deviceTopic)
      let generation = replicas.nextGeneration(deviceTopic, nowMs: nowMs)
      var replica = Replica(
        device: device, generation: generation, madeMs: nowMs, tagKey: tagKey,
        lines: Replica.lines(
          of: codes.text, entries: codes.entries, device: device,
          keypads: replicas.keypads(of: deviceTopic)))
      var payload: [UInt8]
      do {
        var signed = replica.signedBytes
        defer { explicitZero(&signed, signed.count) }
        replica.signature = try key.sign(signed)
        payload = replica.encoded()
        guard payload.count <= Replica.maxBytes else {
          explicitZero(&payload, payload.count)
          junk.say("\(shown(deviceTopic)): no replica sent: it would be over 16 MiB", log)
          return
        }
        try controller.accessLog.commitGeneration(deviceTopic, generation)
        recovered()
      } catch {
        failed("\(shown(deviceTopic)): no replica sent: \(error)")
        return
      }
      defer { explicitZero(&payload, payload.count) }
      let rc = payload.withUnsafeBytes {
        client.publish(topic: SiteTopics.replica(deviceTopic), payload: $0, retain: true)
      }
      if rc != 0 {
        log.warning("\(shown(deviceTopic))/replica: not sent: \(MQTTClient.describe(rc))")
        return
      }
      replicas.made(deviceTopic, generation: generation, codes: replicas.codes, atMs: nowMs)
      log.info(
        "\(shown(deviceTopic))/replica: generation \(generation), \(replica.people) people")
    }
  }

  private func failed(_ line: String) {
    if outage.failed() { log.error(line) }
  }

  private func recovered() {
    if outage.worked() { log.info("\(controller.accessLog.path): written again") }
  }
}
