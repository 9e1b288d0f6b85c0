import PinpadControlCore
import PinpadCore
import PinpadSystem

/// What only a bridge with `[MQTT] Decide=local` holds (`Bridge.Mode.local`).
final class LocalDoor {
  /// The door deciding codes itself.
  let decider: DoorDecider
  /// Whether the site's retained `pinpadd/site/status` says online.
  var siteOnline = false
  /// The last `TOPIC/replica/state` published, and when.
  var replicaState: (text: String, at: Instant)? = nil
  /// The pace of replica checks, the latest replica waiting for its turn, and how many
  /// waiting ones a newer one replaced.
  var replicaPace = ReplicaPace()
  var waitingReplica: [UInt8]? = nil
  var replicasSuperseded = 0

  init(_ decider: DoorDecider) { self.decider = decider }

  /// The broker connection is gone: the site and the state published with it too.
  func brokerLost() {
    siteOnline = false
    replicaState = nil
  }
}

/// A bridge with `[MQTT] Decide=local` (docs/protocol.md, "Replica"): it takes the
/// site's replica on `TOPIC/replica`, decides codes itself (`DoorDecider`), publishes its
/// log on `TOPIC/log` until `TOPIC/log/ack` covers it, and its state on
/// `TOPIC/replica/state`. The bridge calls these with its `LocalDoor`.
extension Bridge {
  /// The most a broker may send a door deciding locally in one packet: a replica of
  /// 16 MiB with room for its topic and headers. Other messages keep their own bounds.
  static let maximumIncomingPacketLocal = UInt32(Replica.maxBytes + 4096)
  /// Log entries published per loop turn, at most.
  static let logBatch = 64
  /// `TOPIC/replica/state` is republished for its age at most this often.
  static let replicaStateInterval: Duration = .seconds(60)

  var replicaTopic: String { SiteTopics.replica(core.topic) }
  var logTopic: String { SiteTopics.log(core.topic) }
  var logAckTopic: String { SiteTopics.logAck(core.topic) }
  var replicaStateTopic: String { SiteTopics.replicaState(core.topic) }

  /// A (re)connection to the broker: the replica (retained: the latest one comes at
  /// once), the site's status and the acks are subscribed; the log is sent again from
  /// its first unacknowledged entry; the daemon's state is published again.
  func localConnected(_ door: LocalDoor, _ client: MQTTClient) {
    for filter in [replicaTopic, SiteTopics.siteStatus] {
      let rc = client.subscribe(filter)
      if rc != 0 { log.warning("cannot subscribe to \(filter): \(MQTTClient.describe(rc))") }
    }
    let rc = client.subscribeSkippingRetained(logAckTopic)
    if rc != 0 { log.warning("cannot subscribe to \(logAckTopic): \(MQTTClient.describe(rc))") }
    door.decider.log.reconnected()
    door.replicaState = nil
    if core.discovery { perform([core.replicaAgeDiscoveryConfig()]) }
    if daemon.state.isReady { perform(core.daemonConnected()) }
  }

  /// A message on the replica, site status or log ack topic; false for other topics.
  func localMessage(_ door: LocalDoor, _ message: MQTTClient.Incoming) -> Bool {
    let topic = message.topic
    if topic == replicaTopic {
      if message.payload.count > Replica.maxBytes {
        log.warning("\(topic): refused \(Replica.Refusal.tooLarge(message.payload.count))")
      } else if door.replicaPace.admit(now: Clock.monotonic()) {
        offerReplica(door, Array(message.payload))
      } else {
        if door.waitingReplica != nil { door.replicasSuperseded += 1 }
        door.waitingReplica = Array(message.payload)
      }
      return true
    }
    if topic == SiteTopics.siteStatus {
      let text = message.payload.count <= 16 ? Array(message.payload) : []
      let online = text.elementsEqual("online".utf8)
      if online != door.siteOnline {
        log.info("the site is \(online ? "online" : "offline")")
      }
      door.siteOnline = online
      // The site subscribes before it says online, so whatever it missed while away (a
      // restart, or a broker restart that it came back to after this door) is sent
      // again: its ack then covers it, and it stores each entry once.
      if online { door.decider.log.reconnected() }
      return true
    }
    if topic == logAckTopic {
      guard message.payload.count <= 4096, !message.retained,
        let ack = LogAck(json: message.payload)
      else {
        log.warning("\(topic): not an ack of this log; ignored")
        return true
      }
      do {
        if try door.decider.log.take(ack) {
          publishReplicaState(door, now: Clock.monotonic(), force: false)
        }
      } catch { log.warning("\(error)") }
      return true
    }
    return false
  }

  /// A code from the daemon: decided here; a `uses=` line's code goes to the site while
  /// it is there.
  func localCode(_ door: LocalDoor, _ code: CodeLine, _ line: UnsafeMutableBufferPointer<UInt8>) {
    let reachable = session.isConnected && door.siteOnline
    let request = DoorDecider.Request(code: code, line: line)
    switch door.decider.decide(request, siteReachable: reachable, send: { publishCode(code, $0) }) {
    case .toSite: break
    case .answered(let verdict):
      sendToDaemon(verdict)
      publishLog(door)
    }
  }

  func offerReplica(_ door: LocalDoor, _ bytes: [UInt8]) {
    if door.replicasSuperseded > 0 {
      log.warning(
        "\(door.replicasSuperseded) replicas replaced by newer ones before their check (a flood)")
      door.replicasSuperseded = 0
    }
    if door.decider.offer(bytes) { publishReplicaState(door, now: Clock.monotonic(), force: true) }
  }

  /// Once per loop turn: the replica waiting for its turn, the next batch of the log,
  /// and the state when it changed.
  func localTurn(_ door: LocalDoor) {
    if let waiting = door.waitingReplica, door.replicaPace.admit(now: Clock.monotonic()) {
      door.waitingReplica = nil
      offerReplica(door, waiting)
    }
    guard session.isConnected else { return }
    publishLog(door)
    publishReplicaState(door, now: Clock.monotonic(), force: false)
  }

  /// When the loop must wake for the door: when a waiting replica may be checked, soon
  /// while log entries wait to be sent, else when the state's age is due again.
  func localDeadline(_ door: LocalDoor, now: Instant) -> Instant? {
    if door.waitingReplica != nil { return door.replicaPace.nextAt(now: now) }
    guard session.isConnected else { return nil }
    let cursor = door.decider.log.cursor
    if cursor.sent < cursor.last { return now + .milliseconds(10) }
    return door.replicaState.map { $0.at + Self.replicaStateInterval }
  }

  /// Publishes the next entries of the log not sent on this connection (QoS 1).
  func publishLog(_ door: LocalDoor) {
    guard session.isConnected, let client = session.client else { return }
    do {
      for entry in try door.decider.log.toSend(limit: Self.logBatch) {
        let rc = client.publish(topic: logTopic, text: entry.json, retain: false)
        if rc != 0 {
          // Sent again from the first unacknowledged entry after the reconnection.
          log.warning("cannot publish to \(logTopic): \(MQTTClient.describe(rc))")
          return
        }
      }
    } catch { log.warning("\(error)") }
  }

  /// `TOPIC/replica/state` (retained) when generation, people or pending entries
  /// changed, or its age is a minute old (`force`: now).
  func publishReplicaState(_ door: LocalDoor, now: Instant, force: Bool) {
    guard session.isConnected else { return }
    let replica = door.decider.replica
    let age = replica.age(now: now).map { Int($0.components.seconds) }
    let text = BridgeCore.replicaState(
      generation: replica.generation, ageSeconds: age ?? 0,
      people: replica.held?.replica.people ?? 0, logPending: door.decider.log.cursor.pending)
    if !force, let last = door.replicaState {
      let changed =
        BridgeCore.replicaStateWithoutAge(last.text) != BridgeCore.replicaStateWithoutAge(text)
      if !changed, now < last.at + Self.replicaStateInterval { return }
    }
    door.replicaState = (text, now)
    perform([.publish(topic: replicaStateTopic, payload: text, retain: true)])
  }
}
