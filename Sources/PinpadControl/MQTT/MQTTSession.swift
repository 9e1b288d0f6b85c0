import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// A broker connection that comes back: connects, and after a loss reconnects with
/// backoff (1 s doubling to 30 s), each time with a fresh `MQTTClient`. Shared by the
/// bridge and the fleet controller, which watch its socket on their EventLoop (`watch`).
/// Where it stands is one value, `state` (`ConnectionState`: its phases and transitions,
/// tested as a value); this class makes the clients, logs and calls back.
///
/// Before the first successful connection a refusal that retrying cannot fix (bad
/// credentials, a failed TLS check) is `fatal` (exit 69); afterwards it is retried.
final class MQTTSession {
  let settings: MQTTSettings
  let log: Logger
  let name: String
  private let password: SecretPassword?
  private let will: (topic: String, payload: String)?
  /// The client of the current attempt; kept after it died until `housekeeping` drops it
  /// (never inside its own callback).
  private(set) var client: MQTTClient? = nil
  /// Counts the clients made: each has a socket of its own (`WatchSet`'s generation).
  private(set) var generation: UInt64 = 0
  private(set) var state = ConnectionState(
    backoff: Backoff(initial: .seconds(1), ceiling: MQTTSession.maxBackoff),
    connectTimeout: MQTTSession.connectTimeout)
  var isConnected: Bool { state.isConnected }
  /// Set when the first connection was refused for a reason retrying cannot fix.
  var fatal: String? { state.fatalMessage }

  var onConnected: (MQTTClient) -> Void = { _ in }
  var onLost: () -> Void = {}
  var onMessage: (String, UnsafeMutableRawBufferPointer) -> Void = { _, _ in }
  /// When set, used instead of `onMessage` (it also has the retain flag).
  var onIncoming: ((MQTTClient.Incoming) -> Void)? = nil

  /// The protocol of every connection (the bridge speaks MQTT 5, see `Bridge`).
  var version: MQTTClient.ProtocolVersion = .v311
  /// With MQTT 5, the largest packet the broker may send (larger ones it drops).
  var maximumIncomingPacket: UInt32? = nil
  private var takeover = TakeoverWatch()

  static let maxBackoff: Duration = .seconds(30)
  static let connectTimeout: Duration = .seconds(10)

  init(
    settings: MQTTSettings, password: SecretPassword?, will: (String, String)?, log: Logger,
    name: String
  ) {
    self.settings = settings
    self.password = password
    self.will = will.map { (topic: $0.0, payload: $0.1) }
    self.log = log
    self.name = name
  }

  var brokerName: String {
    "\(settings.broker.tls ? "mqtts" : "mqtt")://\(settings.broker.host):\(settings.broker.port)"
  }

  func start(now: Instant) { attempt(now: now) }

  private func attempt(now: Instant) {
    let made: MQTTClient
    do {
      made = try MQTTClient(clientID: name, version: version)
      made.maximumIncomingPacket = maximumIncomingPacket
      if !settings.username.isEmpty {
        try made.setCredentials(username: settings.username, password: password?.cString)
      }
      if settings.broker.tls {
        try made.setTLS(
          caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile)
      }
      if let will { try made.setWill(topic: will.topic, payload: will.payload) }
    } catch {
      failed("\(brokerName): \(error)", permanent: true, now: now)
      return
    }
    made.onConnect = { [unowned self] code in connack(code) }
    made.onDisconnect = { [unowned self] code in disconnected(code) }
    made.onMessage = { [unowned self] topic, payload in onMessage(topic, payload) }
    if let onIncoming { made.onIncoming = onIncoming }
    client = made
    generation += 1
    do {
      try made.connect(host: settings.broker.host, port: settings.broker.port)
    } catch {
      let tls = MQTTClient.isTLSFailure(error.code) || made.lastTLSError != nil
      let reason = tlsFailure(made)
      client = nil
      if !tls, settings.broker.tls, !state.hasEverConnected, MQTTClient.isDroppedConnection(error) {
        failed(closedTLSMessage, permanent: true, now: now)
        return
      }
      failed(tls ? reason : "\(brokerName): \(error)", permanent: tls, now: now)
      return
    }
    state.attempted(now: now)
  }

  private func connack(_ code: Int32) {
    let now = Clock.monotonic()
    if version == .v5, code == 1 || code == 0x84 {
      // A 3.1.1 broker answers an MQTT 5 CONNECT with "unacceptable protocol version".
      fallBackTo311(now: now)
      return
    }
    guard code == 0 else {
      // 4: bad user name or password, 5: not authorised (MQTT 3.1.1); in MQTT 5
      // 0x86 and 0x87, and 0x8C a bad authentication method.
      let permanent =
        version == .v5 ? [0x86, 0x87, 0x8C].contains(code) : code == 4 || code == 5
      let words =
        version == .v5 ? MQTTClient.describeReason(code) : MQTTClient.describeConnack(code)
      failed(
        "\(brokerName): the broker refused the connection: \(words)", permanent: permanent,
        now: now)
      return
    }
    state.accepted(now: now)
    takeover.connected(at: now)
    log.info("connected to \(brokerName) as \(name)")
    if let client { onConnected(client) }
  }

  private func disconnected(_ code: Int32) {
    let now = Clock.monotonic()
    // Before the CONNACK this makes the phase `endedEarly`: `pump` tells a failed TLS
    // check from a dropped connection once libmosquitto has returned its own error code.
    guard state.disconnected(code: code, now: now) else { return }
    let takenOver = version == .v5 && code == MQTTClient.sessionTakenOver
    if takeover.lost(at: now, sessionTakenOver: takenOver) {
      log.warning(
        "\(brokerName): another client connected with ClientID \(name) and the broker dropped "
          + "this one (\(takenOver ? "MQTT 5 reason 0x8E, session taken over" : "disconnected right after connecting, again and again")); "
          + "give each device its own ClientID= (or its own Topic=, from which the default comes)"
      )
    }
    let reason =
      code == 0
      ? ""
      : ": " + (takenOver ? MQTTClient.describeReason(code) : MQTTClient.describe(code))
    log.warning("lost the connection to \(brokerName)\(reason)")
    onLost()
  }

  /// What a failed TLS connection says, with OpenSSL's reason when there is one.
  private func tlsFailure(_ client: MQTTClient?) -> String {
    let detail = client?.lastTLSError.map { ": \($0)" } ?? " (certificate, CA or host name)"
    return "\(brokerName): the TLS check failed\(detail)"
  }

  private var closedTLSMessage: String {
    "\(brokerName): the broker closed the TLS connection before answering "
      + "(does it require a client certificate, CertFile= and KeyFile=?)"
  }

  private func fallBackTo311(now: Instant) {
    log.warning(
      "\(brokerName) does not speak MQTT 5; using MQTT 3.1.1 "
        + "(code messages then carry no expiry)")
    version = .v311
    state.fellBack(now: now)
  }

  /// A connection that ended before the broker answered CONNECT.
  private func endedEarly(_ codes: [Int32]) {
    let now = Clock.monotonic()
    if version == .v5, codes.contains(where: MQTTClient.isMalformedPacket) {
      // The same refusal, as newer libmosquitto reports it (MQTTClient.isMalformedPacket).
      fallBackTo311(now: now)
    } else if codes.contains(where: MQTTClient.isTLSFailure) || client?.lastTLSError != nil {
      failed(tlsFailure(client), permanent: true, now: now)
    } else if settings.broker.tls, !state.hasEverConnected {
      // TLS 1.3 finishes the client's side of the handshake before the broker checks
      // the client certificate; its refusal may then arrive as a bare close.
      failed(closedTLSMessage, permanent: true, now: now)
    } else {
      let code = codes.first { $0 != 0 } ?? 0
      failed(
        "\(brokerName): the connection closed before the broker answered"
          + (code == 0 ? "" : " (\(MQTTClient.describe(code)))"), permanent: false, now: now)
    }
  }

  private func failed(_ message: String, permanent: Bool, now: Instant) {
    switch state.failed(message, permanent: permanent, now: now) {
    case .warning(let text): log.warning(text)
    case .debug(let text): log.debug(text)
    case .fatal: break  // the owner's loop logs it and exits (`fatal`)
    }
  }

  /// Drops a dead client (never inside its own callback), retries when due, and gives
  /// up on a CONNACK that does not come.
  func housekeeping(now: Instant) {
    if !state.hasLiveClient, client != nil { client = nil }
    switch state.due(now: now) {
    case .connectTimedOut?:
      client = nil
      failed("\(brokerName): no answer to CONNECT", permanent: false, now: now)
    case .retry?:
      if client == nil { attempt(now: now) }
    case nil:
      break
    }
  }

  /// The soonest time `housekeeping` has something to do.
  var nextDeadline: Instant? { state.nextDeadline }

  /// The broker socket to watch, if any, and for what.
  var watch: WatchSet.Want? {
    pollEntry.map {
      WatchSet.Want(
        fd: $0.fd, generation: generation, events: EventPoll.Events(rawValue: UInt32($0.events)))
    }
  }

  /// Poll entry for the broker socket, if any.
  var pollEntry: pollfd? {
    guard let client, state.hasLiveClient else { return nil }
    let fd = client.fd
    guard fd >= 0 else { return nil }
    return pollfd(
      fd: fd, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
  }

  func pump(readable: Bool) {
    guard let client, state.hasLiveClient else { return }
    let rc = client.pump(readable: readable)
    if rc != mosquittoSuccess, state.hasLiveClient {
      // libmosquitto closed the socket; the disconnect callback may not have run.
      disconnected(rc)
    }
    if case .endedEarly(let early) = state.phase {
      endedEarly([rc, early])
    }
  }

  /// Sends what is queued (the last "offline"), then disconnects: for shutdown.
  func close(flushing seconds: Double = 1) {
    guard let client, state.isConnected else { return }
    let end = Clock.monotonic() + .milliseconds(Int64(seconds * 1000))
    while client.wantsWrite, Clock.monotonic() < end, state.hasLiveClient {
      var entry = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
      _ = poll(&entry, 1, 100)
      client.pump(readable: false)
    }
    state.close()
    client.disconnect()
    client.pump(readable: false)
    self.client = nil
  }
}

private let mosquittoSuccess: Int32 = 0

/// The first line of `[MQTT] PasswordFile=`, in one buffer zeroed when dropped.
final class SecretPassword {
  static let capacity = 1024
  private let bytes: UnsafeMutablePointer<CChar>

  /// nil with the reason when the file cannot be read.
  init(path: String) throws(SystemError) {
    bytes = .allocate(capacity: SecretPassword.capacity + 1)
    bytes.initialize(repeating: 0, count: SecretPassword.capacity + 1)
    let file: OwnedDescriptor
    do { file = try OwnedDescriptor.open(path, O_RDONLY) } catch {
      explicitZero(bytes, SecretPassword.capacity + 1)
      throw SystemError("cannot read \(path)", error)
    }
    var count = 0
    while count < SecretPassword.capacity {
      let n: Int
      do {
        n = try file.fd.read(
          into: UnsafeMutableRawBufferPointer(
            start: bytes + count, count: SecretPassword.capacity - count))
      } catch { throw SystemError("cannot read \(path)", error) }
      if n == 0 { break }
      count += n
    }
    // Keep the first line only.
    var end = 0
    while end < count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
    explicitZero(bytes + end, SecretPassword.capacity + 1 - end)
  }

  deinit {
    explicitZero(bytes, SecretPassword.capacity + 1)
    bytes.deallocate()
  }

  var cString: UnsafePointer<CChar> { UnsafePointer(bytes) }
}
