import PinpadCore

/// The broker connection of `MQTTSession` as a value (docs/protocol.md, "MQTT:
/// connection"): one `Phase` and a mutating function per thing that happens; the
/// session (the shell) makes the clients, logs what it is told and calls back. Pure: time
/// comes in as `now`.
///
///     idle ──attempted──▶ connecting ──accepted──▶ connected
///       │                  │   │                      │
///       │            refused/timed out          disconnected
///       │                  │   └─disconnected─▶ endedEarly ──failed/fellBack──┐
///       └──failed──▶ waiting(retryAt) ◀───────────────────────────────────────┘
///                       └──due──▶ (attempted again)
///
/// A failure that retrying cannot fix (bad credentials, a failed TLS check) before the
/// first connection is `fatal` (exit 69); after one, everything is retried with backoff.
public struct ConnectionState: Equatable, Sendable {
  public enum Phase: Equatable, Sendable {
    /// Not started, or a client could not even be made yet.
    case idle
    /// CONNECT sent; the CONNACK must come by `deadline`.
    case connecting(deadline: Instant)
    case connected(since: Instant)
    /// The connection closed before the CONNACK (libmosquitto's code): the session tells
    /// a failed TLS check, an MQTT 3.1.1 broker or a plain drop apart, then calls
    /// `failed` or `fellBack`.
    case endedEarly(code: Int32)
    /// No client; the next attempt is due at `retryAt`.
    case waiting(retryAt: Instant)
    /// Given up: the first connection failed for a reason retrying cannot fix.
    case fatal(String)
    /// Closed for good (shutdown).
    case closed
  }

  /// What the shell should log for a failure.
  public enum Report: Equatable, Sendable {
    /// The first failure of an outage, with the retry policy.
    case warning(String)
    /// A further failure of the same outage.
    case debug(String)
    /// The session ends (exit 69).
    case fatal(String)
  }

  /// What `due` says is to be done now.
  public enum Due: Equatable, Sendable {
    /// The CONNACK did not come in time: drop the client, then `failed`.
    case connectTimedOut
    /// The wait is over: make a client and connect.
    case retry
  }

  public private(set) var phase: Phase = .idle
  public let connectTimeout: Duration
  private var backoff: Backoff
  /// Successful connections so far: before the first, a permanent failure is fatal.
  public private(set) var connections = 0
  /// Failures since the last successful connection: the first is a warning.
  public private(set) var failures = 0

  public init(backoff: Backoff = Backoff(), connectTimeout: Duration = .seconds(10)) {
    self.backoff = backoff
    self.connectTimeout = connectTimeout
  }

  public var isConnected: Bool {
    if case .connected = phase { return true }
    return false
  }

  /// A client that is alive: its socket is watched and pumped. In any other phase the
  /// shell drops the client it holds.
  public var hasLiveClient: Bool {
    switch phase {
    case .connecting, .connected: return true
    default: return false
    }
  }

  public var fatalMessage: String? {
    if case .fatal(let message) = phase { return message }
    return nil
  }

  public var hasEverConnected: Bool { connections > 0 }

  /// When `due` next has something to say.
  public var nextDeadline: Instant? {
    switch phase {
    case .connecting(let deadline): return deadline
    case .waiting(let retryAt): return retryAt
    default: return nil
    }
  }

  /// The ceiling of the backoff, for the warning's words.
  public var maxBackoff: Duration { backoff.ceiling }

  /// A client was made and its CONNECT is on the way.
  public mutating func attempted(now: Instant) {
    guard isOpen else { return }
    phase = .connecting(deadline: now + connectTimeout)
  }

  /// The broker accepted the connection.
  public mutating func accepted(now: Instant) {
    guard case .connecting = phase else { return }
    phase = .connected(since: now)
    connections += 1
    failures = 0
    backoff.reset()
  }

  /// An attempt failed (`message` says why): wait the next backoff step, or give up
  /// when the failure is `permanent` and no connection ever worked.
  public mutating func failed(_ message: String, permanent: Bool, now: Instant) -> Report {
    guard isOpen else { return .debug(message) }
    if permanent, connections == 0 {
      phase = .fatal(message)
      return .fatal(message)
    }
    phase = .waiting(retryAt: now + backoff.next())
    failures += 1
    guard failures == 1 else { return .debug(message) }
    return .warning(
      "\(message); retrying with backoff up to \(backoff.ceiling.components.seconds) s")
  }

  /// The broker speaks another protocol version: try again at once with the other one
  /// (the backoff is not spent).
  public mutating func fellBack(now: Instant) {
    guard isOpen else { return }
    phase = .waiting(retryAt: now)
  }

  /// The client's connection closed (libmosquitto's `code`). True when a working
  /// connection was lost (the shell says so and calls `onLost`); a connection that ends
  /// before the CONNACK becomes `endedEarly`; in any other phase nothing changes.
  public mutating func disconnected(code: Int32, now: Instant) -> Bool {
    switch phase {
    case .connected:
      phase = .waiting(retryAt: now + backoff.next())
      return true
    case .connecting:
      phase = .endedEarly(code: code)
      return false
    default:
      return false
    }
  }

  /// What is due at `now`, if anything.
  public func due(now: Instant) -> Due? {
    switch phase {
    case .connecting(let deadline) where deadline <= now: return .connectTimedOut
    case .waiting(let retryAt) where retryAt <= now: return .retry
    default: return nil
    }
  }

  /// Shutdown: nothing more is attempted.
  public mutating func close() {
    if case .fatal = phase { return }
    phase = .closed
  }

  /// Not given up and not closed.
  private var isOpen: Bool {
    switch phase {
    case .fatal, .closed: return false
    default: return true
    }
  }
}
