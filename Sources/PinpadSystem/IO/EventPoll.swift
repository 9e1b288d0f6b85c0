import CPinpadShim
import Glibc
import PinpadCore

/// An epoll(7) instance: the one place the daemon's thread sleeps.
public final class EventPoll {
  public struct Events: OptionSet, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readable = Events(rawValue: EPOLLIN.rawValue)
    public static let writable = Events(rawValue: EPOLLOUT.rawValue)
    public static let error = Events(rawValue: EPOLLERR.rawValue)
    public static let hangup = Events(rawValue: EPOLLHUP.rawValue)
    public static let peerClosed = Events(rawValue: EPOLLRDHUP.rawValue)
  }

  private let owner: OwnedDescriptor
  public var fd: FileDescriptor { owner.fd }
  /// Where epoll_wait puts what is ready; read once per descriptor after each wait, from
  /// the loop's one thread (no run-time exclusivity check, as `EventLoop`'s tables).
  @exclusivity(unchecked) private var buffer = [epoll_event](repeating: epoll_event(), count: 64)

  /// epoll_create1(EPOLL_CLOEXEC).
  public init() throws(Errno) {
    owner = OwnedDescriptor(taking: try syscall { epoll_create1(Int32(EPOLL_CLOEXEC)) })
  }

  /// EPOLL_CTL_ADD: report `events` on `target` with `token`.
  public func add(_ target: FileDescriptor, _ events: Events, token: UInt64) throws(Errno) {
    try control(EPOLL_CTL_ADD, target, events, token)
  }
  /// EPOLL_CTL_MOD.
  public func modify(_ target: FileDescriptor, _ events: Events, token: UInt64) throws(Errno) {
    try control(EPOLL_CTL_MOD, target, events, token)
  }
  /// EPOLL_CTL_DEL; a descriptor already closed is fine.
  public func remove(_ target: FileDescriptor) {
    _ = epoll_ctl(fd.rawValue, EPOLL_CTL_DEL, target.rawValue, nil)
  }

  private func control(_ op: Int32, _ target: FileDescriptor, _ events: Events, _ token: UInt64)
    throws(Errno)
  {
    var event = epoll_event()
    event.events = events.rawValue
    event.data.u64 = token
    _ = try syscall { epoll_ctl(fd.rawValue, op, target.rawValue, &event) }
  }

  /// epoll_wait: blocks until something is ready or `timeoutMilliseconds` (-1: forever).
  public func wait(timeoutMilliseconds: Int32 = -1) throws(Errno) -> [(
    token: UInt64, events: Events
  )] {
    let count = buffer.count
    let n = try syscall {
      buffer.withUnsafeMutableBufferPointer { b in
        epoll_wait(fd.rawValue, b.baseAddress!, Int32(count), timeoutMilliseconds)
      }
    }
    return (0..<Int(n)).map { (buffer[$0].data.u64, Events(rawValue: buffer[$0].events)) }
  }

  /// epoll_wait into the instance's own buffer; returns how many are ready, read with
  /// `ready(_:)` until the next wait (no array per wake-up).
  public func waitInPlace(timeoutMilliseconds: Int32 = -1) throws(Errno) -> Int {
    let count = buffer.count
    return Int(
      try syscall {
        buffer.withUnsafeMutableBufferPointer { b in
          epoll_wait(fd.rawValue, b.baseAddress!, Int32(count), timeoutMilliseconds)
        }
      })
  }

  /// The `index`th descriptor reported by the last `waitInPlace`.
  public func ready(_ index: Int) -> (token: UInt64, events: Events) {
    (buffer[index].data.u64, Events(rawValue: buffer[index].events))
  }
}

/// A timerfd(2) on CLOCK_MONOTONIC, armed at absolute instants.
public final class Timer {
  private let owner: OwnedDescriptor
  public var fd: FileDescriptor { owner.fd }

  public init() throws(Errno) {
    owner = OwnedDescriptor(
      taking: try syscall {
        timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
      })
  }

  /// What the timer was last set to; nil when unknown (never set, or it has fired).
  private var armed: (deadline: Instant?, interval: Duration?)?

  /// Fires once at `deadline` (at once when it has passed); nil disarms. Setting what
  /// is already set makes no system call.
  public func arm(at deadline: Instant?, interval: Duration? = nil) {
    if let armed, armed.deadline == deadline, armed.interval == interval { return }
    armed = (deadline, interval)
    var spec = itimerspec()
    if let deadline {
      let ns = max(deadline.nanoseconds, 1)
      spec.it_value = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
      if let interval {
        let i = interval.nanoseconds
        spec.it_interval = timespec(
          tv_sec: Int(i / 1_000_000_000), tv_nsec: Int(i % 1_000_000_000))
      }
    }
    _ = timerfd_settime(fd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
  }

  /// Makes the timer fire no later than `deadline`. One set to fire before it is left
  /// as it is: it fires early, the owner finds nothing due and calls this again. So a
  /// deadline that moves later with every key (the inter-key timeout) costs no system
  /// call. With nil (nothing waits on time) a timer still set fires once, for nothing.
  public func fire(by deadline: Instant?) {
    guard let deadline else { return }
    if let armed, armed.interval == nil, let current = armed.deadline, current <= deadline {
      return
    }
    arm(at: deadline)
  }

  /// Reads the expiration count so the descriptor stops being readable.
  public func acknowledge() {
    // A one-shot timer that fired is disarmed: the next `arm` must reach the kernel.
    if armed?.interval == nil { armed = nil }
    var count: UInt64 = 0
    _ = Glibc.read(fd.rawValue, &count, 8)
  }
}

/// Signals delivered through a signalfd(2) instead of handlers.
///
/// `block` must run first thing in `main`, before any thread exists, so that every
/// thread inherits the mask and no signal is delivered asynchronously.
public final class SignalReader {
  private let owner: OwnedDescriptor
  public var fd: FileDescriptor { owner.fd }

  /// Blocks `signals` in this thread (and threads made after) and opens a signalfd.
  public init(blocking signals: [Int32]) throws(Errno) {
    var set = sigset_t()
    _ = try syscall {
      signals.withUnsafeBufferPointer {
        pinpad_block_signals($0.baseAddress, Int32($0.count), &set)
      } == 0 ? 0 : -1
    }
    owner = OwnedDescriptor(taking: try syscall { pinpad_signalfd(&set) })
  }

  /// The signals that arrived since the last call.
  public func read() -> [Int32] {
    var result: [Int32] = []
    var info = signalfd_siginfo()
    while Glibc.read(fd.rawValue, &info, MemoryLayout<signalfd_siginfo>.size)
      == MemoryLayout<signalfd_siginfo>.size
    {
      result.append(Int32(info.ssi_signo))
    }
    return result
  }

  /// SIGPIPE ignored process-wide: a write to a closed socket gives EPIPE instead.
  public static func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
  }
}
