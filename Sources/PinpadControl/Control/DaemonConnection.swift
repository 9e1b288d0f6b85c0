import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// pinpadctl's link to pinpadd's socket that comes back (docs/protocol.md, "Socket"):
/// connects without blocking the caller's loop, reads the daemon's lines through one
/// `SecretLineReader` (locked, zeroed, bounded) and decodes them (`DaemonLine`), queues
/// requests in a `DaemonOutbox` written as the socket takes them, and while the daemon
/// is away retries every second. Where it stands is one value, `state`
/// (`DaemonLinkState`, tested as a value). Used by the bridge and by `serve`, each on one
/// EventLoop with the descriptor watched under `generation` (`WatchSet`).
final class DaemonConnection {
  let path: String
  private(set) var state = DaemonLinkState()
  private var socket: OwnedDescriptor = .none
  private var reader: SecretLineReader? = nil
  /// Lines for the daemon that its socket has not taken yet.
  private var outbox = DaemonOutbox()
  /// Counts the connections made: each has a descriptor of its own (`WatchSet`).
  private(set) var generation: UInt64 = 0

  init(path: String) { self.path = path }

  /// The socket while connected (greeting or ready).
  var fd: FileDescriptor? { state.isOpen && socket.isOpen ? socket.fd : nil }
  /// Requests wait for room in the socket: watch it for writing too.
  var wantsWrite: Bool { !outbox.isEmpty }
  /// The soonest time `connectIfDue` or `report` has something to do.
  var nextDeadline: Instant? { [state.retryAt, outbox.nextReportAt].compactMap { $0 }.min() }

  /// Connects when `state` says it is time (the first time, the broker back, the wait
  /// over). A warning to log on the first failure of an outage (later ones are quiet).
  func connectIfDue(now: Instant) -> String? {
    guard state.isDue(now: now), !socket.isOpen else { return nil }
    do {
      let connection = try UnixSocket.connect(path: path)
      try connection.fd.setNonBlocking()
      socket.replace(with: connection)
    } catch {
      guard state.connectFailed(now: now) else { return nil }
      return "cannot connect to \(path): \(error); retrying every second"
    }
    generation += 1
    reader = SecretLineReader(fd: socket.fd)
    state.connected()
    return nil
  }

  /// What reading brought.
  enum Event {
    /// The first line came (`hello`): the link is ready.
    case greeted
    /// The first line was an `error` (its reason): the link is closed for good.
    case refused(String)
    /// A line after the greeting and the bytes it was decoded from (a `code` line's
    /// digits are ranges into them), valid during the call only, then zeroed.
    case line(DaemonLine, UnsafeMutableBufferPointer<UInt8>)
    /// A line that is not the protocol's; ignored.
    case malformed(DaemonLine.Problem)
    /// The daemon hung up (or sent a line longer than the buffer); `wasReady`: it had
    /// greeted (the device is now offline). Retried after a second.
    case lost(wasReady: Bool)
  }

  /// Reads what the non-blocking socket has (its descriptor was readable) and hands each
  /// line to `body`, then the end of the connection if it ended.
  func read(now: Instant, _ body: (Event) -> Void) {
    guard let reader, state.isOpen else { return }
    while true {
      let more: Bool
      do { more = try reader.fillIfAvailable() } catch {
        // Lines read before the end are still handled.
        if handleLines(reader, body) { return }
        body(.lost(wasReady: disconnect(now: now)))
        return
      }
      if handleLines(reader, body) { return }
      if !more { return }
    }
  }

  /// Every complete line; true when the link was refused (and is closed).
  private func handleLines(_ reader: SecretLineReader, _ body: (Event) -> Void) -> Bool {
    while let line = reader.completeMutableLine() {
      switch DaemonLine.decode(UnsafeBufferPointer(line)) {
      case .failure(let problem):
        body(.malformed(problem))
      case .success(let message):
        switch state.received(message) {
        case .greeted: body(.greeted)
        case .refused(let reason):
          hangUp()
          body(.refused(reason))
          return true
        case .line: body(.line(message, line))
        }
      }
    }
    return false
  }

  /// Queues `line` (a request without its newline: `ClientRequest.line`) and writes what
  /// the socket takes now; a warning to log when the queue was full and it was dropped.
  func send(_ line: String, now: Instant) -> String? {
    guard state.isOpen else { return nil }
    let warning = outbox.enqueue(line, now: now)
    flush()
    return warning
  }

  /// The warning for dropped lines not yet said (`DaemonOutbox.report`).
  func report(now: Instant) -> String? { outbox.report(now: now) }

  /// Writes queued lines until the socket is full (EAGAIN: the rest waits for POLLOUT)
  /// or empty; a write error other than EAGAIN is left for the read side, which sees
  /// the hang-up.
  func flush() {
    guard let fd else { return }
    outbox.flush { bytes in
      var total = 0
      while total < bytes.count {
        let n = Glibc.write(fd.rawValue, bytes.baseAddress! + total, bytes.count - total)
        if n > 0 {
          total += n
        } else if n < 0, errno == EINTR {
          continue
        } else {
          break
        }
      }
      return total
    }
  }

  /// Hangs up and retries after a second; true when the link was ready.
  @discardableResult
  func disconnect(now: Instant) -> Bool {
    hangUp()
    return state.closed(now: now)
  }

  /// Hangs up and connects again only when `connectIfDue` is next asked (the bridge:
  /// the broker went). True when there was a connection.
  @discardableResult
  func stop() -> Bool {
    let wasOpen = state.isOpen
    hangUp()
    state.stop()
    return wasOpen
  }

  private func hangUp() {
    socket.close()
    reader?.wipe()
    reader = nil
    outbox.clear()
  }
}
