import PinpadCore
import PinpadProgram
import PinpadSystem

/// Opening the controller socket: binding its file, resolving who may connect.
enum ControllerSocket {
  /// The server on the socket systemd passed, or on one bound at `path` (`--socket`,
  /// `[Socket] Path=`), with the file this process bound (nil under systemd).
  static func serve(path: String, _ config: SocketConfig, loop: EventLoop, log: Logger)
    throws(StartError) -> (SocketServer, BoundSocketFile?)
  {
    var missingGroups = MissingGroups()
    let policy = try accessPolicy(config, log: log, &missingGroups)
    let fd: OwnedDescriptor
    var file: BoundSocketFile?
    if let passed = Systemd.listenDescriptors().first(where: UnixSocket.isListeningStream) {
      fd = OwnedDescriptor(taking: passed.rawValue)
      log.info("socket: using the socket passed by systemd")
    } else {
      var identity: FileIdentity?
      fd = try bind(path: path, config, log: log, &missingGroups, identity: &identity)
      file = BoundSocketFile(path: path, identity: identity)
      log.info("socket: listening on \(path)")
    }
    for line in missingGroups.warnings { log.warning(line) }
    do {
      let server = try SocketServer(
        listener: fd, loop: loop, policy: policy, version: pinpaddVersion, log: log)
      return (server, file)
    } catch {
      file?.remove(log: log)
      throw .unavailable("socket: \(error)")
    }
  }

  /// Binds `path` with mode 0660 and the configured group. A socket file left by a
  /// daemon that died is replaced; one that still answers is not. `identity` gets the
  /// bound file's, taken before any client could connect (and unlink it).
  static func bind(
    path: String, _ config: SocketConfig, log: Logger, _ missing: inout MissingGroups,
    identity: inout FileIdentity?
  ) throws(StartError)
    -> OwnedDescriptor
  {
    let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if !folder.isEmpty, !FileSystem.isDirectory(folder) {
      do { try FileSystem.makeDirectories(folder, mode: 0o755) } catch {
        throw .unavailable("socket: \(error)")
      }
    }
    if FileSystem.exists(path) {
      guard FileSystem.isSocket(path) else {
        throw .unavailable("socket: \(path) exists and is not a socket")
      }
      if UnixSocket.isAnswering(path: path) {
        throw .unavailable("socket: another process is answering on \(path)")
      }
      FileSystem.remove(path)
    }
    let gid = try resolveGroup(config, &missing)  // before binding: a bad Group= leaves no socket file
    let fd: OwnedDescriptor
    do {
      fd = try FileSystem.withUmask(0o117) {
        try UnixSocket.listen(path: path) { identity = FileSystem.identity(path) }
      }
    } catch {
      throw .unavailable("socket: cannot listen on \(path): \(error)")
    }
    do {
      try FileSystem.setGroup(path, gid)
    } catch {
      log.warning("socket: \(error)")
    }
    try? FileSystem.setMode(path, 0o660)
    return fd
  }

  /// `[Socket] Group=`: a missing default group falls back to the daemon's own group
  /// with a warning; a missing group that was written in the file is an error.
  private static func resolveGroup(_ config: SocketConfig, _ missing: inout MissingGroups)
    throws(StartError) -> UInt32
  {
    let name = config.group
    if let gid = Accounts.groupID(named: name) { return gid }
    if config.explicitKeys.contains("Group") {
      throw .configuration("[Socket] Group=\(name): no such group")
    }
    missing.add(name, .socketFile)
    return ProcessSetup.groupID
  }

  static func accessPolicy(_ config: SocketConfig, log: Logger, _ missing: inout MissingGroups)
    throws(StartError) -> AccessPolicy
  {
    let uids = try ids(config.allowUsers, key: "AllowUsers", kind: "user", config) {
      Accounts.userID(named: $0)
    } standIn: { name in
      log.warning("socket: user \(name) does not exist")
      return nil
    }
    let gids = try ids(config.allowGroups, key: "AllowGroups", kind: "group", config) {
      Accounts.groupID(named: $0)
    } standIn: { name in
      missing.add(name, .allowed)
      return ProcessSetup.groupID
    }
    return AccessPolicy(uids: uids, gids: gids)
  }

  /// The ids of `names`. A name that does not exist is an error when `key` was written
  /// in the file; a default one gets `standIn`'s id instead (nil: none).
  private static func ids(
    _ names: [String], key: String, kind: String, _ config: SocketConfig,
    lookup: (String) -> UInt32?, standIn: (String) -> UInt32?
  ) throws(StartError) -> Set<UInt32> {
    var ids = Set<UInt32>()
    for name in names {
      if let id = lookup(name) {
        ids.insert(id)
      } else if config.explicitKeys.contains(key) {
        throw .configuration("[Socket] \(key): no such \(kind) \(name)")
      } else if let id = standIn(name) {
        ids.insert(id)
      }
    }
    return ids
  }
}

/// Default-named socket groups that do not exist, and what the daemon's own group
/// stands in for: one warning per name, however many uses it has.
struct MissingGroups {
  enum Use { case socketFile, allowed }
  private var uses: [(name: String, use: Use)] = []

  mutating func add(_ name: String, _ use: Use) { uses.append((name, use)) }

  var warnings: [String] {
    var names: [String] = []
    for (name, _) in uses where !names.contains(name) { names.append(name) }
    return names.map { name in
      let these = uses.filter { $0.name == name }.map(\.use)
      let owner = these.contains(.socketFile)
      let allowed = these.contains(.allowed)
      let standIn =
        owner && allowed
        ? "the socket gets the daemon's own group, and that group may connect"
        : owner ? "the socket gets the daemon's own group" : "the daemon's own group may connect"
      return "socket: group \(name) does not exist; \(standIn)"
    }
  }
}

/// The socket file this process created, with the inode it bound: only that file is
/// removed on exit, never a successor's socket.
struct BoundSocketFile {
  let path: String
  let identity: FileIdentity?

  func remove(log: Logger) {
    if let identity, !FileSystem.remove(path, ifStill: identity) {
      log.warning("socket: \(path) is no longer the socket this process bound; left in place")
    }
  }
}
