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
