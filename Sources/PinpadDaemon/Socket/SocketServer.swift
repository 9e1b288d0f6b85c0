import Glibc
import PinpadCore
import PinpadProgram
import PinpadSystem

/// One connected controller.
///
/// Its buffers and counters are touched for every line, from the loop's thread only and
/// only in this file, each by one statement at a time (no access is held open across a
/// call that could reach the same property): they go without the run-time exclusivity
/// check, as `SocketServer`'s own counters do (bench/README.md).
public final class SocketClient {
  /// Its descriptor's number, kept after the close (the server's key for it).
  public let fd: FileDescriptor
  /// The descriptor itself, closed once when the client is disconnected.
  fileprivate var connection: OwnedDescriptor
  public let peer: PeerCredentials
  /// A number for log lines ("client 3").
  public let serial: Int
  @exclusivity(unchecked) fileprivate var input: [UInt8] = []
  /// Bytes not yet taken by the kernel; `sent` of them already written. Zeroed as
  /// they are sent (a `code` line passes through here).
  @exclusivity(unchecked) fileprivate var output: [UInt8] = []
  @exclusivity(unchecked) fileprivate var sent = 0
  /// The attempt ids of the `code` lines still in `output`, with where each ends.
  @exclusivity(unchecked) fileprivate var secrets: [(id: String, end: Int)] = []
  @exclusivity(unchecked) fileprivate var closed = false
  /// Bytes were queued in this batch and wait for the flush at its end.
  @exclusivity(unchecked) fileprivate var pending = false
  /// The write(2) calls made to this client (one per batch that queued something).
  @exclusivity(unchecked) public fileprivate(set) var writes = 0
  /// Which 4 KiB pages of `output` (counted from the page of its first byte) are
  /// locked in memory already: locked pages stay locked while the buffer lives.
  @exclusivity(unchecked) fileprivate var lockedPages: [Bool] = []
  @exclusivity(unchecked) fileprivate var lockedBase = 0
  /// Watched for writability too (its last write would have blocked): the loop is told
  /// only when this changes, not after every write.
  @exclusivity(unchecked) fileprivate var waitingToWrite = false

  init(_ connection: consuming OwnedDescriptor, peer: PeerCredentials, serial: Int) {
    self.fd = connection.fd
    self.connection = connection
    self.peer = peer
    self.serial = serial
    output.reserveCapacity(SocketServer.maxQueuedBytes)
  }

  var queued: Int { output.count - sent }

  /// Every byte of `output`'s storage, written or not yet (for the tests that check a
  /// sent line leaves no copy behind).
  func outputStorage() -> [UInt8] {
    output.withUnsafeBufferPointer { b in
      guard let base = b.baseAddress else { return [] }
      return Array(UnsafeBufferPointer(start: base, count: output.capacity))
    }
  }

  /// Zeroes `range` of `output` in one pass (not a byte at a time through the class).
  fileprivate func wipeOutput(_ range: Range<Int>) {
    guard !range.isEmpty else { return }
    output.withUnsafeMutableBufferPointer { b in
      UnsafeMutableBufferPointer(rebasing: b[range]).update(repeating: 0)
    }
  }
  /// True while the code line of attempt `id` waits in this process for the client.
  func holdsSecret(of id: String) -> Bool { secrets.contains { $0.id == id && $0.end > sent } }
}

/// The controller socket (docs/protocol.md, "Socket"): accepts clients, checks their
/// credentials, splits their lines and queues what the daemon sends them.
///
/// Nothing here blocks: what a batch of events queues for a client goes out in one
/// write when the batch ends (at once for a hello or a code line, and as soon as
/// `flushThreshold` bytes wait), as far as the kernel takes it, and the rest waits for
/// EPOLLOUT; a client whose backlog passes `maxQueuedBytes` is disconnected, and
/// while all backlogs together pass `maxTotalQueuedBytes` the largest one is, so
/// controllers that stop reading cannot delay keys or other clients, nor grow memory
/// without bound.
///
/// Out of descriptors, the server sheds new connections (a reserve descriptor is
/// given up for a moment to accept and close each one), logs once per episode, and
/// stops watching the listener for a second with a timer made in advance.
public final class SocketServer {
  public static let maxQueuedBytes = 256 * 1024
  public static let maxTotalQueuedBytes = 2 * 1024 * 1024
  /// A client's batch is written at once when it reaches this (a fast replay queues
  /// thousands of lines in one batch; the kernel's buffer takes them as before).
  public static let flushThreshold = 16 * 1024

  private let loop: EventLoop
  /// The listening socket, owned here and closed by `shutdown()`.
  private var listening: OwnedDescriptor
  private let listener: FileDescriptor
  private let policy: AccessPolicy
  private let log: Logger
  private let hello: String
  /// Read for every broadcast; like the counters below, touched by the loop's thread only,
  /// one statement at a time, so without the run-time exclusivity check.
  @exclusivity(unchecked) public private(set) var clients: [Int32: SocketClient] = [:]
  private var serial = 0
  /// Bytes queued for all clients together.
  @exclusivity(unchecked) public private(set) var totalQueued = 0
  /// A descriptor held back for when the process runs out (see `withReserve`).
  private var reserve: OwnedDescriptor
  /// Re-enables accepting after descriptors ran out; made at start, when it can be.
  private let acceptPause: Timer
  private var acceptPaused = false
  /// Connections refused in the current out-of-descriptors episode, nil outside one.
  private var shedThisEpisode: Int?
  /// Clients with bytes queued in this batch, written by `flushPending` at its end.
  @exclusivity(unchecked) private var pending: [SocketClient] = []
  /// The list being written by `flushPending`: the two swap, so neither is reallocated.
  @exclusivity(unchecked) private var flushing: [SocketClient] = []
  /// Where client lines are read into (they hold no digits).
  @exclusivity(unchecked) private var chunk = [UInt8](repeating: 0, count: 8192)
  /// Where `code` lines are built, and every other message encoded
  /// (SocketServer+Messages.swift).
  var codeLine: [UInt8] = []
  var lines = OutgoingLines()

  /// A client sent a well-formed request.
  public var onRequest: (SocketClient, ClientRequest) -> Void = { _, _ in }
  /// A client was authorised and greeted: queued codes may go to it now.
  public var onClientReady: (SocketClient) -> Void = { _ in }

  /// Takes ownership of `listener`.
  public init(
    listener: consuming OwnedDescriptor, loop: EventLoop, policy: AccessPolicy, version: String,
    log: Logger
  ) throws(Errno) {
    self.listener = listener.fd
    self.listening = listener
    self.loop = loop
    self.policy = policy
    self.log = log
    self.hello = DaemonMessage.hello(version: version)
    reserve = Self.openReserve()
    acceptPause = try Timer()
    try self.listener.setNonBlocking()
    try loop.watch(self.listener, .readable) { [unowned self] _ in self.acceptAll() }
    try loop.watch(acceptPause.fd, .readable) { [unowned self] _ in
      self.acceptPause.acknowledge()
      self.acceptPaused = false
      do { try self.loop.change(self.listener, .readable) } catch {
        self.log.error("socket: cannot watch the listening socket again: \(error)")
      }
    }
    loop.atEndOfEveryBatch { [weak self] in self?.flushPending() }
  }

  /// Runs `body` with the reserve descriptor given back, so that it can open a file
  /// (the lockout state) even when clients took every other descriptor.
  public func withReserve<R>(_ body: () throws -> R) rethrows -> R {
    reserve.close()
    defer { reserve = Self.openReserve() }
    return try body()
  }

  private static func openReserve() -> OwnedDescriptor {
    do { return try OwnedDescriptor.open("/dev/null", O_RDONLY) } catch { return .none }
  }

  /// The number of authorised clients connected.
  public var count: Int { clients.count }

  /// The connected client with this serial number, nil once it is gone.
  public func client(serial: Int) -> SocketClient? {
    clients.values.first { $0.serial == serial }
  }

  private func acceptAll() {
    while true {
      let connection: OwnedDescriptor
      do { connection = try UnixSocket.accept(listener) } catch {
        if [ECONNABORTED, EPROTO].contains(error.rawValue) { continue }
        // Out of descriptors or memory: the connection stays in the backlog and the
        // listener stays readable. Shed what waits, then stop watching it for a second.
        outOfDescriptors(error)
        return
      }
      guard connection.isOpen else { return }
      let fd = connection.fd
      if let shed = shedThisEpisode {
        log.info("socket: accepting clients again (\(shed) connection(s) refused meanwhile)")
        shedThisEpisode = nil
      }
      let peer: PeerCredentials
      do { peer = try UnixSocket.peerCredentials(fd) } catch {
        continue  // `connection` closes as it goes
      }
      serial += 1
      guard policy.allows(peer) else {
        log.warning("socket: refused uid \(peer.uid) gid \(peer.gid) pid \(peer.pid): not allowed")
        let line = Array(DaemonMessage.error("forbidden").utf8)
        _ = line.withUnsafeBytes { try? fd.write($0) }
        continue
      }
      let client = SocketClient(connection, peer: peer, serial: serial)
      do {
        try loop.watch(fd, [.readable]) { [unowned self, unowned client] events in
          self.handle(client, events)
        }
      } catch {
        continue  // the client, and with it the connection, goes
      }
      clients[fd.rawValue] = client
      log.info("socket: client \(client.serial) connected (uid \(peer.uid), pid \(peer.pid))")
      send(hello, to: client)
      // Written at once: a client that is already gone is not handed a code.
      flushIfPending(client)
      if !client.closed { onClientReady(client) }
    }
  }

  /// accept(2) failed for want of descriptors or memory: one log line per episode,
  /// the waiting connections refused with the reserve descriptor, then a pause.
  private func outOfDescriptors(_ error: Errno) {
    if shedThisEpisode == nil {
      log.warning(
        "socket: cannot accept clients: \(error); refusing new connections until descriptors are free"
      )
      shedThisEpisode = 0
    }
    // Give the reserve up for each waiting connection, tell it why, close it.
    var refused = 0
    while refused < 256, reserve.isOpen {
      let taken = withReserve { () -> Bool in
        let connection: OwnedDescriptor
        do { connection = try UnixSocket.accept(listener) } catch { return false }
        guard connection.isOpen else { return false }
        let fd = connection.fd
        let line = Array(DaemonMessage.error("too many clients").utf8)
        _ = line.withUnsafeBytes { try? fd.write($0) }
        return true
      }
      guard taken else { break }
      refused += 1
    }
    shedThisEpisode! += refused
    guard !acceptPaused else { return }
    acceptPaused = true
    do { try loop.change(listener, []) } catch {
      log.warning("socket: cannot pause the listening socket: \(error)")
    }
    acceptPause.arm(at: Clock.monotonic() + .seconds(1))
  }

  private func handle(_ client: SocketClient, _ events: EventPoll.Events) {
    if events.contains(.writable) { flush(client) }
    if client.closed { return }
    if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
      readLines(client)
    }
  }

  private func readLines(_ client: SocketClient) {
    // At most a few reads per wake-up: a client that writes without pause must not
    // starve keys and other clients (epoll is level-triggered and comes back).
    var reads = 0
    while !client.closed, reads < 4 {
      reads += 1
      let n: Int
      do { n = try client.fd.read(into: &chunk) } catch {
        if error != .wouldBlock { disconnect(client, reason: "read failed: \(error)") }
        return
      }
      if n == 0 {
        disconnect(client, reason: "closed the connection")
        return
      }
      client.input.append(contentsOf: chunk[0..<n])
      while let newline = client.input.firstIndex(of: 0x0A) {
        if newline > ProtocolVersion.maxLineBytes { break }
        var line = client.input[..<newline]
        if line.last == 0x0D { line = line.dropLast() }
        let request = ClientRequest.parse(line)
        client.input.removeSubrange(...newline)
        switch request {
        case .success(let request): onRequest(client, request)
        case .failure(let error): send(DaemonMessage.error(error.reason), to: client)
        }
        if client.closed { return }
      }
      if client.input.count > ProtocolVersion.maxLineBytes {
        send(
          DaemonMessage.error("line longer than \(ProtocolVersion.maxLineBytes) bytes"), to: client)
        flushIfPending(client)  // the reason goes out before the connection closes
        disconnect(client, reason: "sent a line over \(ProtocolVersion.maxLineBytes) bytes")
        return
      }
      // A short read emptied the socket: reading again would only say EAGAIN. What
      // arrives later (the rest of a partial line too) makes it readable again.
      if n < chunk.count { return }
    }
  }

  /// Queues `line` for one client.
  public func send(_ line: String, to client: SocketClient) {
    var line = line
    line.withUTF8 { enqueue($0, to: client) }
  }

  /// Queues the bytes of a line for one client.
  public func send(_ line: UnsafeBufferPointer<UInt8>, to client: SocketClient) {
    enqueue(line, to: client)
  }

  /// Queues `line` for every client.
  public func broadcast(_ line: String) {
    var line = line
    line.withUTF8 { broadcast($0) }
  }

  /// Queues the bytes of a line for every client.
  public func broadcast(_ line: UnsafeBufferPointer<UInt8>) {
    // Over the dictionary itself: a client disconnected meanwhile leaves it by a copy.
    for client in clients.values { enqueue(line, to: client) }
  }

  /// Queues secret `bytes` (the `code` line of attempt `id`) for every client, then
  /// zeroes them. Returns how many clients took them.
  @discardableResult
  public func broadcastSecret(_ bytes: inout [UInt8], id: String) -> Int {
    var delivered = 0
    // Copied from `bytes` into each client's locked buffer, with no copy in between.
    bytes.withUnsafeBufferPointer { line in
      for client in clients.values {
        enqueue(line, to: client, secret: id)
        if !client.closed { delivered += 1 }
      }
    }
    for i in bytes.indices { bytes[i] = 0 }
    return delivered
  }

  /// Disconnects every client that still holds the unread code line of attempt `id`
  /// (called once that attempt is decided): its bytes are zeroed, so no code waits in
  /// memory for a client that does not read.
  public func dropUnreadSecrets(of id: String) {
    for client in clients.values where client.holdsSecret(of: id) {
      // A line still waiting for the end of this batch goes first, as far as it can.
      flushIfPending(client)
      if client.holdsSecret(of: id) {
        disconnect(client, reason: "had not read a code when its attempt was decided")
      }
    }
  }

  /// Queues `bytes` for `client`; `secret` is the attempt id when they are a code line.
  private func enqueue(
    _ bytes: UnsafeBufferPointer<UInt8>, to client: SocketClient, secret: String? = nil
  ) {
    guard !client.closed else { return }
    if client.queued + bytes.count > SocketServer.maxQueuedBytes {
      disconnect(client, reason: "stopped reading (\(client.queued) bytes waiting)")
      return
    }
    // All backlogs together: the largest goes until this fits (it may be this one).
    while totalQueued + bytes.count > SocketServer.maxTotalQueuedBytes,
      let largest = clients.values.max(by: { $0.queued < $1.queued }), largest.queued > 0
    {
      disconnect(
        largest, reason: "stopped reading (\(largest.queued) bytes waiting, \(totalQueued) in all)")
      if client.closed { return }
    }
    if client.output.count + bytes.count > SocketServer.maxQueuedBytes {
      compact(client)
    }
    if secret != nil { lockPages(of: client, from: client.output.count, count: bytes.count) }
    // Never past the reserved capacity: a reallocation would free a copy of a code.
    client.output.append(contentsOf: bytes)
    totalQueued += bytes.count
    if let secret { client.secrets.append((secret, client.output.count)) }
    if client.pending {
      if client.queued >= SocketServer.flushThreshold { flushIfPending(client) }
    } else if client.queued == bytes.count {
      // Nothing was waiting for EPOLLOUT: written when the batch ends.
      client.pending = true
      pending.append(client)
    }
    // A code line goes at once, with the lines queued before it, so that a client that
    // is gone is found now and not counted as having taken it.
    if secret != nil { flushIfPending(client) }
  }

  /// The bytes the kernel has not taken from the daemon, for `status`: what this batch
  /// queued is written first, so only clients that do not read count.
  public func bytesWaiting() -> Int {
    flushPending()
    return totalQueued
  }

  /// Writes what this batch queued, one write per client (the loop calls it when every
  /// batch ends).
  public func flushPending() {
    guard !pending.isEmpty else { return }
    swap(&pending, &flushing)
    for client in flushing { flushIfPending(client) }
    flushing.empty()
  }

  /// Writes now what waits for the end of the batch.
  private func flushIfPending(_ client: SocketClient) {
    guard client.pending else { return }
    client.pending = false
    if !client.closed { flush(client) }
  }

  /// Locks the pages that bytes `start..<start+count` of the client's buffer will
  /// occupy, before a code line is copied there; pages locked before are not asked again.
  private func lockPages(of client: SocketClient, from start: Int, count: Int) {
    guard let lock = SecretDigits.lockPages, count > 0 else { return }
    client.output.withUnsafeBufferPointer { b in
      guard let base = b.baseAddress, start + count <= client.output.capacity else { return }
      let page = 4096
      let address = Int(bitPattern: base)
      if client.lockedBase != address {  // a new buffer (never, as it is reserved whole)
        client.lockedBase = address
        client.lockedPages = []
      }
      let firstPage = (address + start) / page - address / page
      let lastPage = (address + start + count - 1) / page - address / page
      let range = firstPage...lastPage
      if client.lockedPages.count <= range.upperBound {
        client.lockedPages += Array(
          repeating: false, count: range.upperBound + 1 - client.lockedPages.count)
      }
      guard range.contains(where: { !client.lockedPages[$0] }) else { return }
      lock(UnsafeMutableRawPointer(mutating: base + start), count)
      for i in range { client.lockedPages[i] = true }
    }
  }

  /// Moves the unsent bytes to the front of the buffer and zeroes the rest, in place.
  private func compact(_ client: SocketClient) {
    let pending = client.queued
    let sent = client.sent
    client.output.withUnsafeMutableBufferPointer { b in
      for i in 0..<pending { b[i] = b[sent + i] }
      for i in pending..<b.count { b[i] = 0 }
    }
    client.output.removeLast(client.output.count - pending)
    client.secrets = client.secrets.map { ($0.id, $0.end - sent) }
    client.sent = 0
  }

  private func flush(_ client: SocketClient) {
    while client.queued > 0 {
      let result = client.output.withUnsafeBytes { raw in
        Result { () throws(Errno) -> Int in
          client.writes += 1
          return try client.fd.write(UnsafeRawBufferPointer(rebasing: raw[client.sent...]))
        }
      }
      switch result {
      case .success(let n):
        client.wipeOutput(client.sent..<client.sent + n)
        client.sent += n
        totalQueued -= n
        if !client.secrets.isEmpty { client.secrets.removeAll { $0.end <= client.sent } }
      case .failure(let error):
        if error == .wouldBlock {
          if client.waitingToWrite { return }
          do { try loop.change(client.fd, [.readable, .writable]) } catch {
            disconnect(client, reason: "cannot wait for it to read: \(error)")
            return
          }
          client.waitingToWrite = true
          return
        }
        disconnect(client, reason: "write failed: \(error)")
        return
      }
    }
    // Everything went: reuse the buffer without reallocating.
    client.output.removeAll(keepingCapacity: true)
    client.sent = 0
    client.secrets.empty()
    guard client.waitingToWrite else { return }
    do { try loop.change(client.fd, [.readable]) } catch {
      disconnect(client, reason: "cannot watch it: \(error)")
      return
    }
    client.waitingToWrite = false
  }

  private func disconnect(_ client: SocketClient, reason: String) {
    guard !client.closed else { return }
    client.closed = true
    client.pending = false
    totalQueued -= client.queued
    client.wipeOutput(client.output.indices)
    client.output = []
    client.sent = 0
    client.secrets = []
    loop.unwatch(client.fd)
    client.connection.close()
    clients[client.fd.rawValue] = nil
    log.info("socket: client \(client.serial) disconnected: \(reason)")
  }

  /// Closes every client and the listening socket (the socket file is the caller's to
  /// remove or keep).
  public func shutdown() {
    flushPending()
    for client in Array(clients.values) { disconnect(client, reason: "daemon stopping") }
    loop.unwatch(listener)
    listening.close()
    loop.unwatch(acceptPause.fd)
    reserve.close()
  }
}
