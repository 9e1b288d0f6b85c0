import CMosquitto
import Glibc
import PinpadCore

/// One connection attempt to a broker through libmosquitto: the only file that calls it.
///
/// Driven by the caller's own poll loop (no libmosquitto thread): `fd` and
/// `wantsWrite` say what to wait for, `pump` reads, writes and keeps the connection
/// alive, and the callbacks run inside `pump` on the caller's thread. A client is
/// used for one connection only: after a disconnect it is dropped and a new one made,
/// so nothing queued for the old connection (a code) is ever sent on a later one.
final class MQTTClient {
  /// CONNACK (0 accepted) or a libmosquitto error.
  var onConnect: (_ code: Int32) -> Void = { _ in }
  var onDisconnect: (_ code: Int32) -> Void = { _ in }
  /// A message; the payload may be zeroed in place by the handler.
  var onMessage: (_ topic: String, _ payload: UnsafeMutableRawBufferPointer) -> Void = { _, _ in }
  /// When set, called instead of `onMessage`, with the message's retain flag.
  var onIncoming: ((Incoming) -> Void)? = nil

  /// One received message; `payload` may be zeroed in place by the handler.
  struct Incoming {
    var topic: String
    var payload: UnsafeMutableRawBufferPointer
    /// The retain flag (with `subscribeV5` as published, also on live messages).
    var retained: Bool
  }

  enum ProtocolVersion {
    case v311
    /// MQTT 5: reason codes on DISCONNECT (0x8E session taken over), message expiry on
    /// publish, a maximum packet size the broker must respect.
    case v5
  }
  let version: ProtocolVersion

  /// libmosquitto's last OpenSSL error line, the reason a TLS connection failed.
  private(set) var lastTLSError: String? = nil
  private let handle: OpaquePointer
  static let keepAliveSeconds: Int32 = 30
  private static let initialised: Void = { _ = mosquitto_lib_init() }()

  struct Failure: Error, CustomStringConvertible {
    var code: Int32
    var what: String
    /// errno when `code` is MOSQ_ERR_ERRNO, taken at once.
    var errnoValue: Int32 = 0
    var description: String {
      code == MOSQ_ERR_ERRNO.rawValue
        ? "\(what): \(String(cString: strerror(errnoValue)))"
        : "\(what): \(MQTTClient.describe(code))"
    }
  }

  init(clientID: String, version: ProtocolVersion = .v311) throws(Failure) {
    _ = MQTTClient.initialised
    self.version = version
    guard let made = mosquitto_new(clientID, true, nil) else {
      throw Failure(code: MOSQ_ERR_NOMEM.rawValue, what: "mosquitto_new")
    }
    handle = made
    mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
    _ = mosquitto_int_option(
      handle, MOSQ_OPT_PROTOCOL_VERSION,
      Int32(version == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311))
    _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
    mosquitto_connect_callback_set(handle) { _, object, code in
      MQTTClient.from(object)?.onConnect(code)
    }
    mosquitto_disconnect_callback_set(handle) { _, object, code in
      MQTTClient.from(object)?.onDisconnect(code)
    }
    mosquitto_log_callback_set(handle) { _, object, level, text in
      guard level == MOSQ_LOG_ERR, let text, let client = MQTTClient.from(object) else { return }
      let line = String(cString: text)
      if line.hasPrefix("OpenSSL Error") { client.lastTLSError = line }
    }
    mosquitto_message_callback_set(handle) { _, object, message in
      guard let client = MQTTClient.from(object), let message = message?.pointee,
        let topic = message.topic
      else { return }
      let payload = UnsafeMutableRawBufferPointer(
        start: message.payload, count: Int(max(0, message.payloadlen)))
      if let incoming = client.onIncoming {
        incoming(
          Incoming(topic: String(cString: topic), payload: payload, retained: message.retain))
      } else {
        client.onMessage(String(cString: topic), payload)
      }
    }
  }

  deinit {
    mosquitto_destroy(handle)
  }

  private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient? {
    object.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
  }

  /// `password` is a NUL-terminated buffer the caller zeroes; libmosquitto copies it.
  func setCredentials(username: String, password: UnsafePointer<CChar>?) throws(Failure) {
    let rc = mosquitto_username_pw_set(handle, username, password)
    guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw Failure(code: rc, what: "username") }
  }

  /// TLS with the broker's certificate checked against `caFile` (or the system's CAs
  /// in `/etc/ssl/certs` when empty), with an optional client certificate.
  func setTLS(caFile: String, certFile: String, keyFile: String) throws(Failure) {
    let rc = mosquitto_tls_set(
      handle, caFile.isEmpty ? nil : caFile, caFile.isEmpty ? "/etc/ssl/certs" : nil,
      certFile.isEmpty ? nil : certFile, keyFile.isEmpty ? nil : keyFile, nil)
    guard rc == MOSQ_ERR_SUCCESS.rawValue else {
      throw Failure(code: rc, what: "TLS files")
    }
    // Verify the host name too (libmosquitto's default, said explicitly).
    _ = mosquitto_tls_insecure_set(handle, false)
  }

  func setWill(topic: String, payload: String) throws(Failure) {
    let bytes = Array(payload.utf8)
    let rc = mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, 1, true)
    guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw Failure(code: rc, what: "last will") }
  }

  /// Opens the TCP connection (and TLS handshake) and sends CONNECT; `onConnect`
  /// follows from `pump` once the broker answers.
  func connect(host: String, port: Int) throws(Failure) {
    let rc = connectRC(host: host, port: port)
    guard rc == MOSQ_ERR_SUCCESS.rawValue else {
      throw Failure(code: rc, what: "cannot connect to \(host):\(port)", errnoValue: errno)
    }
  }

  var fd: Int32 { mosquitto_socket(handle) }
  var wantsWrite: Bool { mosquitto_want_write(handle) }

  /// Reads what arrived (when `readable`), writes what is queued, and sends keepalives.
  /// An error means the connection is gone (`onDisconnect` has run).
  @discardableResult
  func pump(readable: Bool) -> Int32 {
    var rc = MOSQ_ERR_SUCCESS.rawValue
    if readable { rc = mosquitto_loop_read(handle, 64) }
    if rc == MOSQ_ERR_SUCCESS.rawValue, wantsWrite { rc = mosquitto_loop_write(handle, 64) }
    if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_loop_misc(handle) }
    return rc
  }

  /// QoS 1. libmosquitto copies `payload` (and keeps that copy until the PUBACK).
  @discardableResult
  func publish(topic: String, payload: UnsafeRawBufferPointer, retain: Bool) -> Int32 {
    mosquitto_publish(handle, nil, topic, Int32(payload.count), payload.baseAddress, 1, retain)
  }

  @discardableResult
  func publish(topic: String, text: String, retain: Bool) -> Int32 {
    var bytes = Array(text.utf8)
    return bytes.withUnsafeMutableBytes {
      publish(topic: topic, payload: UnsafeRawBufferPointer($0), retain: retain)
    }
  }

  func subscribe(_ filter: String) -> Int32 { mosquitto_subscribe(handle, nil, filter, 1) }

  // MARK: MQTT 5

  /// The largest packet the broker may send this client (MQTT 5 CONNECT property; a
  /// broker drops larger messages for it rather than send them). nil: no limit.
  var maximumIncomingPacket: UInt32? = nil

  private func connectRC(host: String, port: Int) -> Int32 {
    guard version == .v5, let limit = maximumIncomingPacket else {
      return mosquitto_connect(handle, host, Int32(port), MQTTClient.keepAliveSeconds)
    }
    var properties: OpaquePointer? = nil
    defer { mosquitto_property_free_all(&properties) }
    let added = mosquitto_property_add_int32(
      &properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), limit)
    guard added == MOSQ_ERR_SUCCESS.rawValue else { return added }
    return mosquitto_connect_bind_v5(
      handle, host, Int32(port), MQTTClient.keepAliveSeconds, nil, properties)
  }

  /// QoS 1 with an MQTT 5 message expiry of `expirySeconds` (the broker drops the
  /// message, from its queues and its store, once that has passed undelivered); on a
  /// 3.1.1 connection the same as `publish`, which has no expiry.
  @discardableResult
  func publish(
    topic: String, payload: UnsafeRawBufferPointer, retain: Bool, expirySeconds: UInt32
  ) -> Int32 {
    guard version == .v5 else { return publish(topic: topic, payload: payload, retain: retain) }
    var properties: OpaquePointer? = nil
    defer { mosquitto_property_free_all(&properties) }
    let added = mosquitto_property_add_int32(
      &properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expirySeconds)
    guard added == MOSQ_ERR_SUCCESS.rawValue else { return added }
    return mosquitto_publish_v5(
      handle, nil, topic, Int32(payload.count), payload.baseAddress, 1, retain, properties)
  }

  /// QoS 1; on MQTT 5 without the retained messages the broker holds (they are never
  /// sent for this subscription) and with each message's retain flag as published, so
  /// a message published retained is seen to be so even while subscribed.
  func subscribeSkippingRetained(_ filter: String) -> Int32 {
    guard version == .v5 else { return subscribe(filter) }
    let options = Int32(
      MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue | MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue)
    return mosquitto_subscribe_v5(handle, nil, filter, 1, options, nil)
  }

  /// MQTT 5 reason 0x8E on DISCONNECT: another client connected with this ClientID.
  static let sessionTakenOver = Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue)

  /// An MQTT 5 CONNACK reason in words.
  static func describeReason(_ code: Int32) -> String {
    String(cString: mosquitto_reason_string(code))
  }

  func disconnect() { _ = mosquitto_disconnect(handle) }

  /// A libmosquitto error code in words (errno for MOSQ_ERR_ERRNO).
  static func describe(_ code: Int32) -> String {
    if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
    return String(cString: mosquitto_strerror(code))
  }

  /// A CONNACK code in words ("not authorised" ...).
  static func describeConnack(_ code: Int32) -> String {
    String(cString: mosquitto_connack_string(code))
  }

  /// The peer closed or broke the stream (as a TLS 1.3 broker refusing a client does).
  static func isDroppedConnection(_ failure: Failure) -> Bool {
    if failure.code == MOSQ_ERR_ERRNO.rawValue {
      return [EPROTO, ECONNRESET, EPIPE].contains(failure.errnoValue)
    }
    return failure.code == MOSQ_ERR_PROTOCOL.rawValue || failure.code == MOSQ_ERR_CONN_LOST.rawValue
  }

  static func isTLSFailure(_ code: Int32) -> Bool {
    code == MOSQ_ERR_TLS.rawValue || code == MOSQ_ERR_TLS_HANDSHAKE.rawValue
  }
}
