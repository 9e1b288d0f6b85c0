import Glibc
import Testing

@testable import PinpadSystem

/// Issue 19: a descriptor has one owner that closes it once. A second close of the same
/// number would hit whatever was opened under that number meanwhile.
@Suite struct OwnedDescriptorTests {
  /// True while `fd` names an open descriptor of this process.
  static func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) != -1 }

  @Test func anOwnerClosesItsDescriptorWhenItEnds() throws {
    var number: Int32 = -1
    do {
      let owner = try OwnedDescriptor.open("/dev/null", O_RDONLY)
      number = owner.fd.rawValue
      #expect(Self.isOpen(number))
    }
    #expect(number >= 0)
    #expect(!Self.isOpen(number))
  }

  @Test func aClosedOwnerNeverClosesTheNumberAgain() throws {
    // A number far above what the other tests' threads are given (the lowest free one),
    // so that only this test reuses it below.
    let null = try OwnedDescriptor.open("/dev/null", O_RDONLY)
    var first = OwnedDescriptor(taking: fcntl(null.fd.rawValue, F_DUPFD_CLOEXEC, 900))
    let number = first.fd.rawValue
    #expect(number >= 900)
    first.close()
    let closed = !first.isOpen
    #expect(closed)
    // The number is reused at once, as by another thread's socket().
    let zero = try OwnedDescriptor.open("/dev/zero", O_RDONLY)
    let second = OwnedDescriptor(taking: fcntl(zero.fd.rawValue, F_DUPFD_CLOEXEC, number))
    #expect(second.fd.rawValue == number)
    first.close()
    _ = consume first  // its end closes nothing either
    #expect(Self.isOpen(number), "the second file was closed by the first owner")
    var byte: UInt8 = 1
    #expect(withUnsafeMutableBytes(of: &byte) { try? second.fd.read(into: $0) } == 1)
    #expect(byte == 0, "the number still reads /dev/zero")
  }

  @Test func releaseGivesOwnershipUpWithoutClosing() throws {
    let owner = try OwnedDescriptor.open("/dev/null", O_RDONLY)
    let fd = owner.release()
    #expect(Self.isOpen(fd.rawValue))
    _ = OwnedDescriptor(taking: fd.rawValue)  // the new owner closes it
    #expect(!Self.isOpen(fd.rawValue))
  }

  @Test func replaceClosesTheOldDescriptorAndOwnsTheNew() throws {
    var owner = try OwnedDescriptor.open("/dev/null", O_RDONLY)
    let old = owner.fd.rawValue
    let other = try OwnedDescriptor.open("/dev/zero", O_RDONLY)
    let new = other.fd.rawValue
    owner.replace(with: other)
    #expect(!Self.isOpen(old))
    #expect(owner.fd.rawValue == new && Self.isOpen(new))
  }

  @Test func aFailedOpenOwnsNothingAndSaysWhy() {
    #expect(throws: Errno.noEntry) { _ = try OwnedDescriptor.open("/nonexistent/file", O_RDONLY) }
    let none = OwnedDescriptor.none
    let open = none.isOpen
    #expect(!open)
  }

  @Test func aFailedConnectClosesItsSocketOnceAndLeavesOthersAlone() throws {
    // UnixSocket.connect failing must not close the socket number twice: open a canary
    // right after, under the freed number, and check it survives.
    #expect(throws: Errno.self) { _ = try UnixSocket.connect(path: "/nonexistent/socket") }
    let canary = try OwnedDescriptor.open("/dev/null", O_RDONLY)
    #expect(throws: Errno.self) { _ = try UnixSocket.connect(path: "/nonexistent/socket") }
    #expect(Self.isOpen(canary.fd.rawValue))
  }
}
