import CPinpadShim
import Glibc

/// A raw file descriptor with typed wrappers for the calls made on it.
///
/// A plain value: whoever opened it closes it (the owning types below do so in
/// their `deinit` or `close()`).
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let standardInput = FileDescriptor(rawValue: 0)
  public static let standardOutput = FileDescriptor(rawValue: 1)
  public static let standardError = FileDescriptor(rawValue: 2)

  /// open(2) with O_CLOEXEC added.
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno)
    -> FileDescriptor
  {
    let fd = try syscall { Glibc.open(path, flags | O_CLOEXEC, mode) }
    return FileDescriptor(rawValue: fd)
  }

  /// close(2). EINTR is not retried: on Linux the descriptor is gone either way.
  public func close() { _ = Glibc.close(rawValue) }

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
