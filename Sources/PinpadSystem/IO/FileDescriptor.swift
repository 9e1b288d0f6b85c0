import CPinpadShim
import Glibc

/// A descriptor number with typed wrappers for the calls made on it: a borrowed handle
/// that cannot close anything. Each open descriptor has exactly one owner, an
/// `OwnedDescriptor`, which alone closes it.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let standardInput = FileDescriptor(rawValue: 0)
  public static let standardOutput = FileDescriptor(rawValue: 1)
  public static let standardError = FileDescriptor(rawValue: 2)

  /// read(2) into `buffer`; 0 means end of file.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try syscall { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// read(2) into the start of `buffer`; 0 means end of file.
  public func read(into buffer: inout [UInt8]) throws(Errno) -> Int {
    let fd = rawValue
    return try syscall {
      buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    }
  }

  /// write(2) of as much of `buffer` as the kernel takes now.
  public func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
    try syscall { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// Writes all of `bytes`, waiting as needed (blocking descriptors only).
  public func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
    let array = Array(bytes)
    var offset = 0
    while offset < array.count {
      offset += try syscall {
        array.withUnsafeBytes { raw in
          Glibc.write(rawValue, raw.baseAddress! + offset, raw.count - offset)
        }
      }
    }
  }

  /// poll(2) for input on this descriptor alone: true when a read would not block (data,
  /// end of stream or an error to read), false when `milliseconds` passed first.
  public func waitReadable(milliseconds: Int32) throws(Errno) -> Bool {
    var entry = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
    return try syscall { poll(&entry, 1, milliseconds) } > 0
  }

  /// Sets or clears O_NONBLOCK.
  public func setNonBlocking(_ on: Bool = true) throws(Errno) {
    let flags = try syscall { fcntl(rawValue, F_GETFL) }
    _ = try syscall { fcntl(rawValue, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) }
  }

  /// Marks the descriptor close-on-exec.
  public func setCloseOnExec() throws(Errno) {
    _ = try syscall { fcntl(rawValue, F_SETFD, FD_CLOEXEC) }
  }

  /// isatty(3).
  public var isTerminal: Bool { isatty(rawValue) == 1 }
}

/// The one owner of an open descriptor: it is closed exactly once, by `close()` or when
/// the owner ends (its `deinit`), and never again.
///
/// Not copyable, so no second value can hold the same number and close it later (a
/// close of a number that someone else has reopened meanwhile closes *their* file: a
/// keypad, a client, a socket another thread just made). Wrap a descriptor the moment
/// a system call returns it; calls on it borrow `fd`, which cannot close.
public struct OwnedDescriptor: ~Copyable {
  /// The descriptor for calls; -1 once closed (or for `none`).
  public private(set) var fd: FileDescriptor

  /// Takes ownership of `rawValue` (-1: owns nothing).
  public init(taking rawValue: Int32) { fd = FileDescriptor(rawValue: rawValue) }

  /// An owner of nothing, for a slot that is filled later.
  public static var none: OwnedDescriptor { OwnedDescriptor(taking: -1) }

  /// open(2) with O_CLOEXEC added.
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno)
    -> OwnedDescriptor
  {
    OwnedDescriptor(taking: try syscall { Glibc.open(path, flags | O_CLOEXEC, mode) })
  }

  /// True until closed.
  public var isOpen: Bool { fd.rawValue >= 0 }

  /// close(2), once: later calls do nothing. EINTR is not retried: on Linux the
  /// descriptor is gone either way.
  public mutating func close() {
    guard fd.rawValue >= 0 else { return }
    _ = Glibc.close(fd.rawValue)
    fd = FileDescriptor(rawValue: -1)
  }

  /// Closes what it owns and takes ownership of `other` instead.
  public mutating func replace(with other: consuming OwnedDescriptor) {
    close()
    fd = other.release()
  }

  /// Gives ownership up without closing: for a C library that closes the descriptor
  /// itself.
  public consuming func release() -> FileDescriptor {
    let fd = self.fd
    discard self
    return fd
  }

  deinit {
    if fd.rawValue >= 0 { _ = Glibc.close(fd.rawValue) }
  }
}

/// An `OwnedDescriptor` held by reference, for where a non-copyable value cannot go
/// (arrays, dictionaries, closures): still the one owner, closed once.
public final class OpenDescriptor {
  private var owner: OwnedDescriptor
  /// The descriptor's number; -1 once closed.
  public var fd: Int32 { owner.fd.rawValue }
  public var descriptor: FileDescriptor { owner.fd }

  public init(_ owner: consuming OwnedDescriptor) { self.owner = owner }

  /// Closes it now rather than when the last reference goes; later calls do nothing.
  public func close() { owner.close() }

}
