import PinpadCore
import PinpadSystem

/// Opening the controller socket: where it comes from and who may use it.
extension Daemon {
  func openSocket() throws(StartError) {
    var missingGroups = MissingGroups()
    let policy = try accessPolicy(&missingGroups)
    let fd: FileDescriptor
    if let passed = Systemd.listenDescriptors().first(where: UnixSocket.isListeningStream) {
      fd = passed
      log.info("socket: using the socket passed by systemd")
    } else {
      let path = options.socketPath ?? config.socket.path
      fd = try bindSocket(path: path, &missingGroups)
      ownedSocketPath = path
      ownedSocketIdentity = FileSystem.identity(path)
      log.info("socket: listening on \(path)")
    }
    for line in missingGroups.warnings { log.warning(line) }
    listener = fd
    do {
      let server = try SocketServer(
        listener: fd, loop: loop, policy: policy, version: pinpaddVersion, log: log)
      server.onRequest = { [unowned self] client, request in self.request(request, from: client) }
      server.onClientReady = { [unowned self] _ in self.send(.clientReady) }
      self.server = server
    } catch {
      throw .unavailable("socket: \(error)")
    }
  }

  /// Binds `path` with mode 0660 and the configured group. A socket file left by a
  /// daemon that died is replaced; one that still answers is not.
  private func bindSocket(path: String, _ missing: inout MissingGroups) throws(StartError)
    -> FileDescriptor
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
    let gid = try resolveGroup(&missing)  // before binding: a bad Group= leaves no socket file
    let fd: FileDescriptor
    do {
      fd = try FileSystem.withUmask(0o117) { try UnixSocket.listen(path: path) }
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
  private func resolveGroup(_ missing: inout MissingGroups) throws(StartError) -> UInt32 {
    let name = config.socket.group
    if let gid = Accounts.groupID(named: name) { return gid }
    if config.socket.explicitKeys.contains("Group") {
      throw .configuration("[Socket] Group=\(name): no such group")
    }
    missing.add(name, .socketFile)
    return ProcessSetup.groupID
  }

  private func accessPolicy(_ missing: inout MissingGroups) throws(StartError) -> AccessPolicy {
    var uids = Set<UInt32>()
    var gids = Set<UInt32>()
    for name in config.socket.allowUsers {
      if let uid = Accounts.userID(named: name) {
        uids.insert(uid)
      } else if config.socket.explicitKeys.contains("AllowUsers") {
        throw .configuration("[Socket] AllowUsers: no such user \(name)")
      } else {
        log.warning("socket: user \(name) does not exist")
      }
    }
    for name in config.socket.allowGroups {
      if let gid = Accounts.groupID(named: name) {
        gids.insert(gid)
      } else if config.socket.explicitKeys.contains("AllowGroups") {
        throw .configuration("[Socket] AllowGroups: no such group \(name)")
      } else {
        missing.add(name, .allowed)
        gids.insert(ProcessSetup.groupID)
      }
    }
    return AccessPolicy(uids: uids, gids: gids)
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
