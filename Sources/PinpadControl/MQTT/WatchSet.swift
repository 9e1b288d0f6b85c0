import PinpadCore
import PinpadSystem

/// The watches of pinpadctl's service loops (`ServiceLoop`) on an `EventLoop`: the
/// descriptors that come and go (the broker's socket, which libmosquitto opens and closes
/// itself; the daemon's connection) are declared after every batch with `sync`, and the
/// watches follow; `wake(at:)` sets the one timer. What each descriptor reported in the
/// batch is in `ready`, for the owner's `afterEach`, and is cleared by `sync`.
///
/// A descriptor is named by its slot and a generation (a new connection is a new
/// generation, even when the kernel gives it the number of the one before): a closed
/// descriptor has left the epoll set by itself, so every watch that changed is dropped
/// before any new one is added, and a new socket with an old number is added afresh.
final class WatchSet {
  enum Slot: Hashable {
    case broker
    case daemon
  }
  struct Want: Equatable {
    var fd: Int32
    var generation: UInt64
    var events: EventPoll.Events
  }

  let loop: EventLoop
  private let timer: Timer
  private var watched: [Slot: Want] = [:]
  private(set) var ready: [Slot: EventPoll.Events] = [:]

  init() throws(Errno) {
    loop = try EventLoop()
    timer = try Timer()
    try loop.watch(timer.fd, .readable) { [unowned self] _ in timer.acknowledge() }
  }

  /// Watches what `wants` names (a slot missing or nil: not watched).
  func sync(_ wants: [Slot: Want?]) throws(Errno) {
    ready = [:]
    var wanted: [Slot: Want] = [:]
    for (slot, want) in wants { if let want { wanted[slot] = want } }
    for (slot, was) in watched {
      if let now = wanted[slot], now.fd == was.fd, now.generation == was.generation { continue }
      loop.unwatch(FileDescriptor(rawValue: was.fd))
      watched[slot] = nil
    }
    for (slot, want) in wanted {
      let fd = FileDescriptor(rawValue: want.fd)
      if watched[slot] != nil {
        try loop.change(fd, want.events)
      } else {
        try loop.watch(fd, want.events) { [unowned self] events in
          ready[slot, default: []].formUnion(events)
        }
      }
      watched[slot] = want
    }
  }

  /// The loop wakes at `deadline` even when no descriptor is ready.
  func wake(at deadline: Instant) { timer.arm(at: deadline) }
}
