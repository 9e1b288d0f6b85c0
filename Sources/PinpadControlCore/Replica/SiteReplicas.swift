import PinpadCore

/// The site's side of the replicas (docs/protocol.md, "Replica"; pinpadctl(1), `serve
/// --mqtt --sign-key`): which devices the site knows, their keypads, and which of them
/// need a new replica now. A value: the fleet controller feeds it what the broker says
/// (a device's `status`, its keypads' retained `state`), tells it when the codes file
/// changed, asks it what is `due`, and reports each replica it committed and published
/// (`made`). It does no I/O.
///
/// A device is known once it said `online` on `DEVICE_TOPIC/status` and stays known (a
/// replica is retained: a device that is away gets its revocations when it is back). It
/// needs a new replica when it has none from this run of the site yet, when its keypads
/// or the codes file changed since its last one, when it comes online again or the site
/// reconnected (the broker may have lost what it retained), and when its last one is
/// `resignAfterMs` old; but at most one a `minIntervalMs` (a peer that flaps a status
/// costs one signature a second). Names come from topics, so from any peer on the
/// broker: the devices and keypads kept are bounded (`maxDevices`, `maxKeypads`).
public struct SiteReplicas: Equatable, Sendable {
  /// A replica is re-signed this long after the last one (docs/protocol.md: at least
  /// hourly).
  public static let resignAfterMs: Int64 = 3_600_000
  /// A device gets at most one replica in this long.
  public static let minIntervalMs: Int64 = 1000
  /// Devices kept at most; a status from a further one is ignored.
  public static let maxDevices = 4096
  /// Keypads kept at most per device; further ones are ignored.
  public static let maxKeypads = 256
  /// Topic levels under a device that are not keypads (its replica, doors and log).
  public static let notKeypads: Set<String> = ["replica", "door", "log"]

  struct Device: Equatable, Sendable {
    var known = false
    var online = false
    /// Its replica is sent again (it came back online, the site reconnected).
    var resend = false
    var keypads: Set<String> = []
    /// What its last replica of this run was made from, nil before the first.
    var made: Made? = nil
  }
  struct Made: Equatable, Sendable {
    var codes: UInt64
    var keypads: Set<String>
    var atMs: Int64
  }

  /// Keyed by the device's topic (`pinpadd/door1`).
  private var devices: [String: Device] = [:]
  /// The last generation made for each device topic (committed before it is published),
  /// restored from the database at start.
  private var generations: [String: UInt64]
  /// Counts the changes of the codes file.
  public private(set) var codes: UInt64 = 0

  /// `generations`: what the database holds, by device topic.
  public init(generations: [String: UInt64] = [:]) {
    self.generations = generations
  }

  /// The device at `deviceTopic` said `online` (true) or something else on its status.
  /// Returns false when it was ignored (one device too many, or an unknown one offline).
  @discardableResult
  public mutating func status(deviceTopic: String, online: Bool) -> Bool {
    guard var device = devices[deviceTopic] ?? (online ? Device() : nil),
      devices[deviceTopic] != nil || devices.count < Self.maxDevices
    else { return false }
    if online, !device.online { device.resend = true }
    device.known = device.known || online
    device.online = online
    devices[deviceTopic] = device
    return true
  }

  /// A retained `DEVICE_TOPIC/KEYPAD/state` arrived (`present`), or was cleared (an empty
  /// payload). A device's keypads may come before its status. Returns false when it was
  /// ignored (not a keypad's level, or over the bounds).
  @discardableResult
  public mutating func keypad(deviceTopic: String, keypad: String, present: Bool) -> Bool {
    guard !Self.notKeypads.contains(keypad), !keypad.isEmpty else { return false }
    guard var device = devices[deviceTopic] else {
      guard present, devices.count < Self.maxDevices else { return false }
      devices[deviceTopic] = Device(keypads: [keypad])
      return true
    }
    if present {
      guard device.keypads.contains(keypad) || device.keypads.count < Self.maxKeypads else {
        return false
      }
      device.keypads.insert(keypad)
    } else {
      device.keypads.remove(keypad)
    }
    devices[deviceTopic] = device
    return true
  }

  /// The codes file changed (or was read the first time, or became unusable).
  public mutating func codesChanged() { codes &+= 1 }

  /// The site (re)connected to the broker: every known device gets its replica again.
  public mutating func reconnected() {
    for topic in devices.keys { devices[topic]?.resend = true }
  }

  /// The keypads known for the device at `deviceTopic`, sorted.
  public func keypads(of deviceTopic: String) -> [String] {
    (devices[deviceTopic]?.keypads ?? []).sorted()
  }

  /// The known devices that need a new replica at `nowMs` (wall clock), sorted.
  public func due(nowMs: Int64) -> [String] {
    devices.compactMap { topic, device in
      guard device.known else { return nil }
      guard let made = device.made else { return topic }
      // A clock set back counts as a long time.
      let elapsed = nowMs >= made.atMs ? nowMs - made.atMs : Int64.max
      guard elapsed >= Self.minIntervalMs else { return nil }
      let changed = made.codes != codes || made.keypads != device.keypads
      return changed || device.resend || elapsed >= Self.resignAfterMs ? topic : nil
    }.sorted()
  }

  /// The generation of the next replica for `deviceTopic` made at `nowMs`: above the last
  /// one, and at least `nowMs` (so that a site whose database was lost still goes
  /// forward, its clock being right).
  public func nextGeneration(_ deviceTopic: String, nowMs: Int64) -> UInt64 {
    let last = generations[deviceTopic] ?? 0
    return max(last &+ 1, UInt64(max(nowMs, 0)))
  }

  /// The replica of `generation` for `deviceTopic`, made at `atMs` from the codes file
  /// as it was at `codes` and the keypads known then, was committed and published.
  public mutating func made(_ deviceTopic: String, generation: UInt64, codes: UInt64, atMs: Int64) {
    generations[deviceTopic] = max(generations[deviceTopic] ?? 0, generation)
    guard var device = devices[deviceTopic] else { return }
    device.made = Made(codes: codes, keypads: device.keypads, atMs: atMs)
    device.resend = false
    devices[deviceTopic] = device
  }

  /// The last generation made for `deviceTopic`.
  public func generation(_ deviceTopic: String) -> UInt64? { generations[deviceTopic] }
}

extension SiteReplicas {
  /// What a message on one of the site's topics is, for the device filter `devices`
  /// (the `--topics` filter without its `/+/code`, e.g. `pinpadd/+`): a device's
  /// status, a keypad's state, or a device's log; nil for anything else.
  public enum Topic: Equatable, Sendable {
    case status(deviceTopic: String)
    case keypadState(deviceTopic: String, keypad: String)
    case log(deviceTopic: String)
  }

  /// The device filter of the `--topics` filter `codes` (`pinpadd/+/+/code` →
  /// `pinpadd/+`).
  public static func deviceFilter(codes filter: String) -> String {
    String(filter.dropLast("/+/code".count))
  }

  /// What `topic` is under the device filter `devices`. The site's own status topic
  /// (`SiteTopics.siteStatus`) is not a device's, nor one whose last level cannot be a
  /// replica's device (`Replica.deviceProblem`).
  public static func classify(_ topic: String, devices: String) -> Topic? {
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    let depth = devices.split(separator: "/", omittingEmptySubsequences: false).count
    guard levels.count == depth + 1 || levels.count == depth + 2 else { return nil }
    let deviceTopic = levels[0..<depth].joined(separator: "/")
    guard deviceTopic != SiteTopics.site, MQTTTopic.matches(deviceTopic, filter: devices),
      depth >= 1, Replica.deviceProblem(Array(levels[depth - 1].utf8)) == nil
    else { return nil }
    if levels.count == depth + 1 {
      switch levels[depth] {
      case "status": return .status(deviceTopic: deviceTopic)
      case "log": return .log(deviceTopic: deviceTopic)
      default: return nil
      }
    }
    guard levels[depth + 1] == "state", !notKeypads.contains(String(levels[depth])) else {
      return nil
    }
    return .keypadState(deviceTopic: deviceTopic, keypad: String(levels[depth]))
  }
}
