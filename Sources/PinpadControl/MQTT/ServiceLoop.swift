import PinpadCore
import PinpadProgram
import PinpadSystem

/// The loop of pinpadctl's three services: `serve` (`ServeCommand.serve`), `mqtt`
/// (`Bridge.run`) and `serve --mqtt` (`FleetController`). One EventLoop (`WatchSet`) over
/// the broker's socket and the daemon's, as the service has them, the signals it blocked
/// (SIGTERM and SIGINT for the MQTT ones; `serve` blocks none, they end it) and one timer.
/// After each wake-up a signal stops it (`onSignal` first); else the service's
/// `afterEach`, then its `turn`: what to watch (`sync`) and when to wake next, or to
/// stop.
final class ServiceLoop {
  /// An MQTT service wakes at least this often, for the broker's keepalive.
  static let keepAliveWake = Duration.seconds(Int64(MQTTClient.keepAliveSeconds)) / 3

  let watches: WatchSet
  private let signals: SignalReader?
  private var signalled = false

  init(signals: SignalReader? = nil) throws(Errno) {
    watches = try WatchSet()
    self.signals = signals
    if let signals {
      try watches.loop.watch(signals.fd, .readable) { [unowned self] _ in signalled = true }
    }
  }

  /// 1 ms after the soonest of `deadlines` (1 ms from `now` when it has passed), and at
  /// the latest `idle` from now.
  static func wake(now: Instant, deadlines: [Instant?], idle: Duration = keepAliveWake)
    -> Instant
  {
    var timeout = idle
    if let soonest = deadlines.compactMap({ $0 }).min() {
      timeout = min(timeout, max(.zero, soonest - now) + .milliseconds(1))
    }
    return now + timeout
  }

  /// Watches the broker's socket and the daemon's, those the service has (and has now).
  func sync(broker: MQTTSession? = nil, daemon: DaemonConnection? = nil) throws(Errno) {
    let daemonWatch = daemon.flatMap { daemon in
      daemon.fd.map {
        WatchSet.Want(
          fd: $0.rawValue, generation: daemon.generation,
          events: daemon.wantsWrite ? [.readable, .writable] : .readable)
      }
    }
    try watches.sync([.broker: broker?.watch, .daemon: daemonWatch])
  }

  /// Whether the broker's socket is readable (or failed) in this batch.
  var brokerReadable: Bool {
    !(watches.ready[.broker] ?? []).isDisjoint(with: [.readable, .error, .hangup])
  }

  /// The daemon's socket in this batch: `daemon` writes what it queued when it is
  /// writable; `read` when anything else came.
  func serveDaemon(_ daemon: DaemonConnection, read: () -> Void) {
    let ready = watches.ready[.daemon] ?? []
    if ready.contains(.writable) { daemon.flush() }
    if !ready.subtracting(.writable).isEmpty { read() }
  }

  /// What a service's `turn` says: when to wake next, or to stop with an exit code.
  enum Next {
    case wake(at: Instant)
    case stop(exitCode: Int32)
  }

  /// The exit code when `session`'s broker refused it for good (logged): exit 69.
  static func fatal(_ session: MQTTSession, _ log: Logger) -> Int32? {
    guard let fatal = session.fatal else { return nil }
    log.error(fatal)
    return ExitCode.unavailable.rawValue
  }

  /// Runs `turn`, then after each batch the signals, `afterEach` and `turn` again, until
  /// a signal (exit code 0), `afterEach` returning false (0) or `turn` saying stop (its
  /// code). An epoll error stops it, thrown as `SystemError`.
  @discardableResult
  func run(
    onSignal: () -> Void = {}, afterEach: () -> Bool, turn: () throws(Errno) -> Next
  ) throws(SystemError) -> Int32 {
    var result: Int32 = 0
    var failure: Errno? = nil
    // Arms the timer for the next wake-up; false to stop.
    func next() -> Bool {
      do throws(Errno) {
        switch try turn() {
        case .wake(let at):
          watches.wake(at: at)
          return true
        case .stop(let exitCode):
          result = exitCode
          return false
        }
      } catch {
        failure = error
        return false
      }
    }
    if next() {
      do throws(Errno) {
        try watches.loop.run {
          if signalled {
            signalled = false
            if let signals, !signals.read().isEmpty {
              onSignal()
              return watches.loop.stop()
            }
          }
          guard afterEach(), next() else { return watches.loop.stop() }
        }
      } catch {
        throw SystemError("epoll", error)
      }
    }
    if let failure { throw SystemError("epoll", failure) }
    return result
  }
}
