import PinpadCore

/// The daemon's one thread: epoll over every descriptor, callbacks by token.
///
/// There is no polling: with nothing to do the thread sleeps in epoll_wait. Timed work
/// goes through `Timer`s registered like any other descriptor.
///
/// Its tables are touched several times a batch, from this one thread, and no access is
/// held open across a handler's call (a handler is copied out, then called; the lists
/// are copied before they are run), so handlers may watch, unwatch and defer freely:
/// they go without the run-time exclusivity check (with it, a code of the closed loop
/// costs 1 500 more instructions, and 800 more for `EventPoll`'s buffer: 5.5 % of
/// 41 700; bench/README.md, issue 42). `freeSlots`, touched only by watch and unwatch,
/// keeps the check.
public final class EventLoop {
  public typealias Handler = (EventPoll.Events) -> Void
  private let poll: EventPoll
  /// The handlers, by the low 32 bits of their token (an index: no hashing for each
  /// ready descriptor); the high bits count watches, so an event still queued for a
  /// descriptor unwatched in the same batch finds its slot's token changed, and is
  /// dropped, even when a new descriptor took the slot.
  @exclusivity(unchecked) private var slots: [Slot] = []
  private var freeSlots: [Int] = []
  private var watches: UInt64 = 0
  @exclusivity(unchecked) private var tokens: [Int32: UInt64] = [:]
  /// The events each descriptor is watched for, so `change` skips EPOLL_CTL_MOD when
  /// nothing changes (the socket asks for `.readable` after every complete write).
  @exclusivity(unchecked) private var interests: [Int32: EventPoll.Events] = [:]
  @exclusivity(unchecked) private var running = false
  /// Work queued by `defer(_:)`, run after the current batch of events.
  @exclusivity(unchecked) private var deferred: [() -> Void] = []
  /// Work run at the end of every batch, after `afterEach` (the socket's writes).
  @exclusivity(unchecked) private var endOfBatch: [() -> Void] = []

  public init() throws(Errno) { poll = try EventPoll() }

  /// Calls `handler` whenever `fd` reports one of `events`.
  public func watch(_ fd: FileDescriptor, _ events: EventPoll.Events, handler: @escaping Handler)
    throws(Errno)
  {
    let index: Int
    if let free = freeSlots.popLast() {
      index = free
    } else {
      index = slots.count
      slots.append(Slot(token: 0, handler: nil))
    }
    watches &+= 1
    let token = watches &<< 32 | UInt64(index)
    do { try poll.add(fd, events, token: token) } catch {
      freeSlots.append(index)
      throw error
    }
    slots[index] = Slot(token: token, handler: handler)
    tokens[fd.rawValue] = token
    interests[fd.rawValue] = events
  }

  /// Changes the events `fd` is watched for (no system call when they are the same).
  /// Throws what EPOLL_CTL_MOD said when it refused (ENOMEM, or a descriptor closed
  /// while still watched): the interest is then what it was, and the caller acts.
  public func change(_ fd: FileDescriptor, _ events: EventPoll.Events) throws(Errno) {
    guard let token = tokens[fd.rawValue], interests[fd.rawValue] != events else { return }
    try poll.modify(fd, events, token: token)
    interests[fd.rawValue] = events
  }

  /// Stops watching `fd` (call before closing it).
  public func unwatch(_ fd: FileDescriptor) {
    guard let token = tokens.removeValue(forKey: fd.rawValue) else { return }
    let index = Self.slot(of: token)
    slots[index] = Slot(token: 0, handler: nil)
    freeSlots.append(index)
    interests[fd.rawValue] = nil
    poll.remove(fd)
  }

  /// Runs `work` at the end of every batch of events, after `afterEach`.
  public func atEndOfEveryBatch(_ work: @escaping () -> Void) { endOfBatch.append(work) }

  /// Runs `work` once the current events are handled.
  public func `defer`(_ work: @escaping () -> Void) { deferred.append(work) }

  /// Runs until `stop()`. `afterEach` runs after every batch (the daemon re-arms its
  /// deadline timer there).
  public func run(afterEach: () -> Void = {}) throws(Errno) {
    running = true
    stopped = false
    while running { try turn(timeoutMilliseconds: -1, afterEach: afterEach) }
  }

  /// One batch: waits up to `timeoutMilliseconds` (-1: for ever; 0: not at all) for
  /// descriptors, handles those ready and the work deferred, then `afterEach` and the
  /// end-of-batch work. `run` repeats this; a test harness calls it a turn at a time.
  /// Returns how many descriptors were ready.
  @discardableResult
  public func turn(timeoutMilliseconds: Int32, afterEach: () -> Void = {}) throws(Errno) -> Int {
    // Work deferred before the first wait (a fast replay) must not wait for an event.
    let count = try poll.waitInPlace(
      timeoutMilliseconds: deferred.isEmpty ? timeoutMilliseconds : 0)
    for i in 0..<count {
      let (token, events) = poll.ready(i)
      // A handler may have removed this descriptor while handling an earlier one.
      let index = Self.slot(of: token)
      guard index < slots.count, slots[index].token == token, let handler = slots[index].handler
      else { continue }
      handler(events)
    }
    while !deferred.isEmpty {
      let work = deferred
      deferred = []
      for item in work { item() }
    }
    afterEach()
    for work in endOfBatch { work() }
    return count
  }

  private struct Slot {
    var token: UInt64
    var handler: Handler?
  }

  private static func slot(of token: UInt64) -> Int { Int(truncatingIfNeeded: token & 0xFFFF_FFFF) }

  /// True once `stop()` was called (until `run` starts again).
  public private(set) var stopped = false

  public func stop() {
    running = false
    stopped = true
  }
}
