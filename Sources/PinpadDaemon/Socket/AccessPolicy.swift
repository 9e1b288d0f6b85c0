import PinpadSystem

/// Who may use the socket: `[Socket] AllowUsers=` and `AllowGroups=` resolved to ids.
public struct AccessPolicy: Sendable {
  public var uids: Set<UInt32>
  public var gids: Set<UInt32>
  public init(uids: Set<UInt32>, gids: Set<UInt32>) {
    self.uids = uids
    self.gids = gids
  }

  /// True when the peer's uid is allowed, or its primary or any supplementary group
  /// as the kernel reports them for the connection (SO_PEERCRED, SO_PEERGROUPS). The
  /// group database is not asked: a process that dropped a group is not in it, and
  /// one given a group at run time (systemd's SupplementaryGroups=) is.
  public func allows(_ peer: PeerCredentials) -> Bool {
    if uids.contains(peer.uid) { return true }
    if gids.contains(peer.gid) { return true }
    return peer.groups.contains { gids.contains($0) }
  }
}
