import PinpadCore

/// A client's link to pinpadd's socket as a value (docs/protocol.md, "Socket: hello",
/// "MQTT: connection"): connect, read the greeting, and while the daemon is away retry
/// every `Backoff` step (1 s by default, as `serve` and the bridge always did). The shell
/// (`DaemonConnection`) does the connecting and reading and tells this what happened.
/// Pure: time comes in as `now`.
///
///     stopped ──connected──▶ greeting ──hello──▶ ready
///        │ ▲                    │  └──error──▶ refused (final)
///  failed│ │stop                closed          │closed
///        ▼ │                    ▼               ▼
///     waiting(retryAt) ◀────────┴───────────────┘
///
/// A refusal before the greeting (`forbidden`) is final: the peer is not allowed, and
/// retrying would not change that.
public struct DaemonLinkState: Equatable, Sendable {
  public enum Phase: Equatable, Sendable {
    /// Not wanted: before the first connection, or while the bridge's broker is away.
    /// `warned`: the daemon's absence has been said already.
    case stopped(warned: Bool)
    /// Away; the next attempt is due at `retryAt`.
    case waiting(retryAt: Instant, warned: Bool)
    /// Connected, waiting for the first line (`hello`).
    case greeting
    /// Greeted: lines flow both ways.
    case ready
    /// The daemon answered the connection with an `error` (its reason).
    case refused(String)
  }

  /// What a line from the daemon means for the link.
  public enum Arrival: Equatable, Sendable {
    /// The first line: the link is ready (`hello`, or any first line but `error`).
    case greeted
    /// The first line was an `error`: the link is `refused`.
    case refused(String)
    /// A line after the greeting, for the shell to handle.
    case line
  }

  public private(set) var phase: Phase = .stopped(warned: false)
  private var backoff: Backoff

  public init(backoff: Backoff = Backoff(initial: .seconds(1), ceiling: .seconds(1))) {
    self.backoff = backoff
  }

  /// Connected (greeting or ready): the socket is watched.
  public var isOpen: Bool {
    switch phase {
    case .greeting, .ready: return true
    default: return false
    }
  }

  public var isReady: Bool { phase == .ready }

  public var refusal: String? {
    if case .refused(let reason) = phase { return reason }
    return nil
  }

  /// When `isDue` next turns true.
  public var retryAt: Instant? {
    if case .waiting(let at, _) = phase { return at }
    return nil
  }

  /// Whether a connection should be made now: stopped (the first one, or the broker is
  /// back), or the wait is over.
  public func isDue(now: Instant) -> Bool {
    switch phase {
    case .stopped: return true
    case .waiting(let at, _): return at <= now
    default: return false
    }
  }

  /// The socket is connected: the greeting comes next.
  public mutating func connected() {
    switch phase {
    case .stopped, .waiting: phase = .greeting
    default: return
    }
    backoff.reset()
  }

  /// The connection could not be made: retry after the next backoff step. True when
  /// this is the first failure since the daemon was last there (say it once).
  public mutating func connectFailed(now: Instant) -> Bool {
    let warned: Bool
    switch phase {
    case .stopped(let said), .waiting(_, let said): warned = said
    default: return false
    }
    phase = .waiting(retryAt: now + backoff.next(), warned: true)
    return !warned
  }

  /// A line came (decoded): before the greeting, an `error` refuses the link and
  /// anything else greets it.
  public mutating func received(_ line: DaemonLine) -> Arrival {
    switch phase {
    case .greeting:
      if case .error(let reason) = line {
        phase = .refused(reason)
        return .refused(reason)
      }
      phase = .ready
      return .greeted
    default:
      return .line
    }
  }

  /// The daemon hung up (or the link was dropped for a bad line): retry after the next
  /// step. True when the link was ready (the device is now offline).
  public mutating func closed(now: Instant) -> Bool {
    guard isOpen else { return false }
    let wasReady = isReady
    phase = .waiting(retryAt: now + backoff.next(), warned: false)
    return wasReady
  }

  /// No connection wanted until `isDue` is asked again (the bridge's broker went): the
  /// shell hangs up. A refused link stays refused.
  public mutating func stop() {
    switch phase {
    case .refused: return
    case .waiting(_, let warned), .stopped(let warned): phase = .stopped(warned: warned)
    case .greeting, .ready: phase = .stopped(warned: false)
    }
  }
}
