import Glibc
import Synchronization

/// The sd-daemon protocols, spoken by hand (they are tiny): readiness and watchdog
/// notifications on $NOTIFY_SOCKET, sockets passed with $LISTEN_FDS.
public enum Systemd {
  /// The datagram socket notifications are sent from: made for the first one and kept
  /// (the daemon sends two STATUS= lines per code), made again after a failed send.
  ///
  /// Held in an object made at run time: a `Mutex<OwnedDescriptor>(.none)` static was
  /// initialised statically in release builds (swift.org 6.3.1) with descriptor 0 instead
  /// of -1, so the first READY=1 went to standard input and systemd never saw it.
  private static let notifySocket = Mutex(NotifySocket())
  private final class NotifySocket: @unchecked Sendable {
    var owner = OwnedDescriptor.none
    /// $NOTIFY_SOCKET's address and its length, read at the first notification (the
    /// environment is the process's own, set before it started); length 0: none.
    var address = sockaddr_un()
    var length = 0
    var resolved = false

    func resolve() {
      resolved = true
      guard var path = ProcessSetup.environment("NOTIFY_SOCKET"), !path.isEmpty else { return }
      address.sun_family = sa_family_t(AF_UNIX)
      let abstract = path.hasPrefix("@")
      if abstract { path.removeFirst() }
      let bytes = Array(path.utf8)
      guard bytes.count + 1 < MemoryLayout.size(ofValue: address.sun_path) else { return }
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        let start = abstract ? 1 : 0
        for (i, b) in bytes.enumerated() { raw[start + i] = b }
      }
      length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 1 : 0)
    }
  }

  /// Whether $NOTIFY_SOCKET names a socket: the daemon was started by a service manager
  /// that takes notifications (`notify` does nothing otherwise).
  public static var notifies: Bool {
    notifySocket.withLock { notify in
      if !notify.resolved { notify.resolve() }
      return notify.length > 0
    }
  }

  /// Sends `state` ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=...") to
  /// $NOTIFY_SOCKET; does nothing when not run by systemd. No allocation once the first
  /// has been sent.
  public static func notify(_ state: String) {
    var state = state
    notifySocket.withLock { notify in
      if !notify.resolved { notify.resolve() }
      guard notify.length > 0 else { return }
      if !notify.owner.isOpen {
        notify.owner.replace(
          with: OwnedDescriptor(
            taking: socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)))
        guard notify.owner.isOpen else { return }
      }
      let socket = notify.owner.fd.rawValue
      let length = socklen_t(notify.length)
      let sent = withUnsafePointer(to: &notify.address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
          state.withUTF8 {
            sendto(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), a, length)
          }
        }
      }
      if sent < 0 { notify.owner.close() }
    }
  }

  /// The watchdog interval systemd expects pings within ($WATCHDOG_USEC for this pid).
  public static func watchdogInterval() -> Duration? {
    guard let usec = ProcessSetup.environment("WATCHDOG_USEC").flatMap(Int64.init), usec > 0
    else { return nil }
    if let pid = ProcessSetup.environment("WATCHDOG_PID").flatMap(Int32.init),
      pid != ProcessSetup.processID
    {
      return nil
    }
    return .microseconds(usec)
  }

  /// The descriptors passed by socket activation (from fd 3), for this process only.
  /// Clears the variables so children do not inherit them. Numbers only: the caller
  /// takes ownership of the one it uses (`OwnedDescriptor(taking:)`); the others stay
  /// open, as systemd passed them.
  public static func listenDescriptors() -> [FileDescriptor] {
    defer {
      for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
        ProcessSetup.unsetEnvironment(name)
      }
    }
    guard let pid = ProcessSetup.environment("LISTEN_PID").flatMap(Int32.init),
      pid == ProcessSetup.processID,
      let count = ProcessSetup.environment("LISTEN_FDS").flatMap(Int32.init), count > 0
    else { return [] }
    return (0..<count).map {
      let fd = FileDescriptor(rawValue: 3 + $0)
      try? fd.setCloseOnExec()
      return fd
    }
  }

  /// True when stderr is connected to the journal ($JOURNAL_STREAM names its inode).
  public static func stderrIsJournal() -> Bool {
    guard let value = ProcessSetup.environment("JOURNAL_STREAM") else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else {
      return false
    }
    var info = stat()
    guard fstat(2, &info) == 0 else { return false }
    return UInt64(info.st_dev) == dev && UInt64(info.st_ino) == ino
  }
}
