import CPinpadShim
import Glibc

/// The credentials of the process at the other end of a Unix socket, as the kernel
/// took them when it connected: SO_PEERCRED and SO_PEERGROUPS.
public struct PeerCredentials: Equatable, Sendable {
  public var pid: Int32
  public var uid: UInt32
  public var gid: UInt32
  /// The peer's supplementary groups (what setgroups(2) or systemd's
  /// SupplementaryGroups= gave it), not what /etc/group lists for its user.
  public var groups: [UInt32]
  public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
    self.pid = pid
    self.uid = uid
    self.gid = gid
    self.groups = groups
  }
}

/// Unix stream sockets: the daemon's listening socket, its clients, and pinpadctl.
public enum UnixSocket {
  /// socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC [| SOCK_NONBLOCK]).
  public static func stream(nonBlocking: Bool) throws(Errno) -> OwnedDescriptor {
    let type =
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
      | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
    return OwnedDescriptor(taking: try syscall { socket(AF_UNIX, type, 0) })
  }

  private static func withAddress(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) throws(Errno) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { throw Errno(ENAMETOOLONG) }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    return try syscall {
      withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
    }
  }

  /// bind(2) + listen(2) on `path`. `bound` runs in between: no client can connect yet,
  /// so the file it finds at `path` is this socket's (a client may unlink it as soon as
  /// it could connect).
  public static func listen(path: String, backlog: Int32 = 64, bound: () -> Void = {})
    throws(Errno) -> OwnedDescriptor
  {
    let socket = try stream(nonBlocking: true)
    let fd = socket.fd
    _ = try withAddress(path) { bind(fd.rawValue, $0, $1) }
    bound()
    _ = try syscall { Glibc.listen(fd.rawValue, backlog) }
    return socket
  }

  /// connect(2) to `path` (blocking socket).
  public static func connect(path: String) throws(Errno) -> OwnedDescriptor {
    let socket = try stream(nonBlocking: false)
    let fd = socket.fd
    _ = try withAddress(path) { Glibc.connect(fd.rawValue, $0, $1) }
    return socket
  }

  /// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC
  /// (`OwnedDescriptor.none` when no connection is waiting).
  public static func accept(_ listener: FileDescriptor) throws(Errno) -> OwnedDescriptor {
    do {
      let fd = try syscall {
        pinpad_accept4(
          listener.rawValue, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
      }
      return OwnedDescriptor(taking: fd)
    } catch {
      if error == .wouldBlock { return .none }
      throw error
    }
  }

  /// getsockopt(SO_PEERCRED).
  public static func peerCredentials(_ fd: FileDescriptor) throws(Errno) -> PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
    _ = try syscall { pinpad_peer_credentials(fd.rawValue, &pid, &uid, &gid) }
    return PeerCredentials(pid: pid, uid: uid, gid: gid, groups: try peerGroups(fd))
  }

  /// getsockopt(SO_PEERGROUPS), growing the buffer when the peer has many groups.
  static func peerGroups(_ fd: FileDescriptor) throws(Errno) -> [UInt32] {
    var groups = [UInt32](repeating: 0, count: 64)
    while true {
      let capacity = Int32(groups.count)
      let count = try syscall {
        groups.withUnsafeMutableBufferPointer {
          pinpad_peer_groups(fd.rawValue, $0.baseAddress, capacity)
        }
      }
      if Int(count) <= groups.count { return Array(groups.prefix(Int(count))) }
      groups = [UInt32](repeating: 0, count: Int(count))
    }
  }

  /// True when something accepts connections on `path` (used before replacing a
  /// socket file left behind by a daemon that died).
  public static func isAnswering(path: String) -> Bool {
    do {
      _ = try connect(path: path)
      return true
    } catch { return false }
  }

  /// True when `fd` is a listening AF_UNIX stream socket (for LISTEN_FDS checks).
  public static func isListeningStream(_ fd: FileDescriptor) -> Bool {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd.rawValue, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0 else {
      return false
    }
    return value == 1
  }
}

/// Users and groups from NSS (getpwnam_r, getgrnam_r, getpwuid_r).
public enum Accounts {
  public static func userID(named name: String) -> UInt32? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
      return nil
    }
    return entry.pw_uid
  }

  public static func groupID(named name: String) -> UInt32? {
    var entry = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
      return nil
    }
    return entry.gr_gid
  }

  /// The user's name for a uid, nil when it has none.
  public static func userName(of uid: UInt32) -> String? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
      return nil
    }
    return String(cString: entry.pw_name)
  }
}
