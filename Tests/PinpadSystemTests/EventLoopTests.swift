import Glibc
import Testing

@testable import PinpadSystem

@Suite struct EventLoopTests {
  /// Issue 19: EPOLL_CTL_MOD's error used to be dropped, leaving the loop believing a
  /// descriptor was watched for what it asked.
  @Test func aChangeTheKernelRefusesIsThrownAndLeavesTheInterestAsItWas() throws {
    let loop = try EventLoop()
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    var reader = OwnedDescriptor(taking: fds[0])
    let writer = OwnedDescriptor(taking: fds[1])
    let fd = reader.fd
    try loop.watch(fd, .readable) { _ in }
    try loop.change(fd, [.readable, .peerClosed])  // accepted
    reader.close()  // closed while still watched: epoll forgets it
    #expect(throws: Errno.self) { try loop.change(fd, .readable) }
    // Still recorded as [.readable, .peerClosed]: asking for that again makes no call.
    try loop.change(fd, [.readable, .peerClosed])
    loop.unwatch(fd)
    _ = writer
  }
}

/// The handler table: slots reused, and an event for a descriptor unwatched earlier in
/// the same batch never reaches whoever took its slot.
@Suite struct EventLoopSlotTests {
  /// A pipe whose ends close with it.
  private final class Pipe {
    let readEnd: OwnedDescriptor
    let writeEnd: OwnedDescriptor
    init() {
      var fds: [Int32] = [-1, -1]
      #expect(pipe(&fds) == 0)
      readEnd = OwnedDescriptor(taking: fds[0])
      writeEnd = OwnedDescriptor(taking: fds[1])
    }
    var read: FileDescriptor { readEnd.fd }
  }

  private func pipePair() -> Pipe { Pipe() }

  private func poke(_ pair: Pipe) {
    var byte: UInt8 = 1
    #expect(Glibc.write(pair.writeEnd.fd.rawValue, &byte, 1) == 1)
  }

  private func drain(_ pair: Pipe) {
    var buffer = [UInt8](repeating: 0, count: 16)
    _ = Glibc.read(pair.read.rawValue, &buffer, 16)
  }

  /// None of `pairs` is watched any more: made readable, none is reported, and asking
  /// for other events on one makes no call (one still in the handler table would be
  /// changed in epoll, which no longer has it: ENOENT is thrown).
  private func expectUnwatched(_ loop: EventLoop, _ pairs: [Pipe]) throws {
    for pair in pairs { poke(pair) }
    #expect(try loop.turn(timeoutMilliseconds: 0) == 0)
    for pair in pairs {
      try loop.change(pair.read, .writable)
      drain(pair)
    }
  }

  @Test func aStaleEventDoesNotReachTheHandlerThatTookItsSlot() throws {
    let loop = try EventLoop()
    let a = pipePair()
    let b = pipePair()
    let c = pipePair()
    var calls: [String] = []
    // A's handler, called first, unwatches B (ready in the same batch) and watches C,
    // which takes B's slot; C is readable too. B's queued event must be dropped.
    try loop.watch(a.read, .readable) { _ in
      calls.append("A")
      loop.unwatch(b.read)
      try? loop.watch(c.read, .readable) { _ in calls.append("C") }
    }
    try loop.watch(b.read, .readable) { _ in calls.append("B") }
    poke(a)
    poke(b)
    poke(c)
    #expect(try loop.turn(timeoutMilliseconds: 1000) == 2)
    #expect(calls == ["A"])
    // C is served from the next batch on, from the slot B had.
    calls = []
    loop.unwatch(a.read)
    #expect(try loop.turn(timeoutMilliseconds: 1000) == 1)
    #expect(calls == ["C"])
    loop.unwatch(c.read)
    try expectUnwatched(loop, [a, b, c])
  }

  @Test func slotsAreReusedAndEveryHandlerKeepsItsDescriptor() throws {
    let loop = try EventLoop()
    let pairs = (0..<50).map { _ in pipePair() }
    let poked = Set(stride(from: 0, to: 50, by: 7))
    for round in 0..<3 {
      var seen: [Int] = []
      // A different order each round, so the slots change hands.
      for n in round % 2 == 0 ? Array(0..<50) : Array((0..<50).reversed()) {
        try loop.watch(pairs[n].read, .readable) { _ in seen.append(n) }
      }
      for n in poked { poke(pairs[n]) }
      #expect(try loop.turn(timeoutMilliseconds: 1000) == poked.count)
      #expect(Set(seen) == poked, "round \(round)")
      #expect(seen.count == poked.count, "round \(round)")
      for n in poked { drain(pairs[n]) }
      for pair in pairs { loop.unwatch(pair.read) }
      try expectUnwatched(loop, pairs)
    }
  }
}
