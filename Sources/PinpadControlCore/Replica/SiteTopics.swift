/// Every topic and name the site and its doors share (docs/protocol.md, "Replica"), in
/// one place both sides read: the site (`SiteService`, `SiteReplicas`) publishes to and
/// listens on what a door (`Bridge+Local`, `DoorDecider`) listens on and publishes to.
/// `device` is a device's topic (`Topic=`, e.g. `pinpadd/door1`).
public enum SiteTopics {
  /// The site's retained `online|offline` (offline as its last will).
  public static let siteStatus = "pinpadd/site/status"
  /// The site's own topic, never a device's (no door may be called `site`).
  public static let site = "pinpadd/site"

  /// A device's retained `online|offline`, from its bridge.
  public static func status(_ device: String) -> String { device + "/status" }
  /// The device's signed replica, from the site (retained).
  public static func replica(_ device: String) -> String { device + "/replica" }
  /// What the door holds (retained), from its bridge.
  public static func replicaState(_ device: String) -> String { device + "/replica/state" }
  /// The door's own decisions, from its bridge.
  public static func log(_ device: String) -> String { device + "/log" }
  /// How much of that log the site has, from the site.
  public static func logAck(_ device: String) -> String { device + "/log/ack" }

  /// The device's name in its replica and its log: the last level of its topic.
  public static func deviceName(_ device: String) -> String {
    String(device.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
  }
}
