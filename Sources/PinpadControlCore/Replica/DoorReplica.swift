import PinpadCore

/// The replica a door deciding locally holds (docs/protocol.md, "Replica"), as a value:
/// what it takes from the site, what it refuses (the one it holds stays), and whether it
/// is too old to decide from (`[MQTT] MaxReplicaAgeSec=`). The signature check comes in
/// as a function (the shell's `Ed25519PublicKey.verify`); the clock comes in with each
/// call (the door's monotonic clock), so its age survives no wall-clock step; the tags'
/// MAC comes in at init (the shell's `HMACSHA256`).
public struct DoorReplica: Sendable {
  /// This device: the topic level the site names it by.
  public let device: String
  /// No fresh replica for this long: `stale`; nil: no limit.
  public let maxAge: Duration?
  /// The replica held, with its lines read as a codes file.
  public private(set) var held: Replica.Parsed?
  /// When (the door's monotonic clock) the replica held was received.
  public private(set) var receivedAt: Instant?
  /// The people to decide among: the replica's lines, which cannot spend uses (a
  /// `uses=` line's code goes to the site), with the key of their tags.
  public private(set) var people: People?
  /// The key of the tags from a replica's `tag-key` bytes.
  private let tagKey: @Sendable ([UInt8]) -> CodeTagKey

  public init(
    device: String, maxAge: Duration?, tagKey: @escaping @Sendable ([UInt8]) -> CodeTagKey
  ) {
    self.device = device
    self.maxAge = maxAge
    self.tagKey = tagKey
  }

  /// What became of a replica offered.
  public enum Intake: Equatable, Sendable {
    /// Taken: it replaces the one held (the shell keeps its bytes).
    case taken
    /// The very replica held, sent again (a retained message at a reconnection):
    /// nothing to do, nothing to log.
    case same
    /// Refused whole; the one held stays. One log line: the refusal's description.
    case refused(Replica.Refusal)
  }

  /// Offers `bytes` received at `now`: refused when over 16 MiB, of another version, not
  /// in the format or with a line that does not parse, then when its signature does not
  /// verify, when it names another device, or when its generation is not greater than
  /// the one held, in that order (docs/protocol.md, "Replica: format").
  public mutating func offer(
    _ bytes: [UInt8], now: Instant,
    verify: (_ signature: [UInt8], _ message: [UInt8]) -> Bool
  ) -> Intake {
    guard bytes.count <= Replica.maxBytes else { return .refused(.tooLarge(bytes.count)) }
    let parsed: Replica.Parsed
    switch Replica.parse(bytes) {
    case .failure(let refusal): return .refused(refusal)
    case .success(let value): parsed = value
    }
    if let held, held.replica == parsed.replica { return .same }
    if let refusal = Replica.refusal(
      of: parsed.replica, device: device, held: held?.replica.generation, verify: verify)
    {
      return .refused(refusal)
    }
    held = parsed
    receivedAt = now
    people = People(
      entries: parsed.entries, key: parsed.replica.tagKey.map(tagKey), spendsUses: false)
    return .taken
  }

  /// Takes the replica the door kept (its state directory), received `ago` before
  /// `now` (by the file's time): checked as a new one (signature, device), so a file
  /// changed on disk is refused as one from the broker would be.
  public mutating func restore(
    _ bytes: [UInt8], ago: Duration, now: Instant,
    verify: (_ signature: [UInt8], _ message: [UInt8]) -> Bool
  ) -> Intake {
    let intake = offer(bytes, now: now, verify: verify)
    if intake == .taken { receivedAt = now - max(ago, .zero) }
    return intake
  }

  /// How long ago the replica held was received; nil when none is held.
  public func age(now: Instant) -> Duration? {
    receivedAt.map { max(now - $0, .zero) }
  }

  /// Whether every code is to be denied `stale`: a replica is held and is older than
  /// `maxAge`.
  public func isStale(now: Instant) -> Bool {
    guard let maxAge, let age = age(now: now) else { return false }
    return age > maxAge
  }

  /// The generation held, 0 for none.
  public var generation: UInt64 { held?.replica.generation ?? 0 }
}
