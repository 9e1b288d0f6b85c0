import Glibc

/// A Linux error number, thrown by the wrappers in this module.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: Int32
  public init(_ rawValue: Int32) { self.rawValue = rawValue }

  /// The calling thread's current `errno`.
  public static var current: Errno { Errno(errno) }

  public static let interrupted = Errno(EINTR)
  public static let wouldBlock = Errno(EAGAIN)
  public static let noEntry = Errno(ENOENT)
  public static let notPermitted = Errno(EPERM)
  public static let accessDenied = Errno(EACCES)
  public static let timedOut = Errno(ETIMEDOUT)
  public static let noDevice = Errno(ENODEV)

  /// strerror(3): "Permission denied".
  public var description: String { String(cString: strerror(rawValue)) }
}

/// Runs a system call that returns -1 and sets errno on failure, retrying EINTR.
@inline(__always)
public func syscall<T: BinaryInteger>(_ body: () -> T) throws(Errno) -> T {
  while true {
    let result = body()
    if result != -1 { return result }
    let error = Errno.current
    if error != .interrupted { throw error }
  }
}

/// The one error of this module: the operation and the path or object it was about,
/// what a person needs to act on ("cannot open /dev/fb0: Permission denied",
/// "/dev/input/event3: EVIOCGRAB failed: Device or resource busy").
public struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
  public var operation: String
  /// 0 when no system call failed (the object is wrong: see `reason`, or `operation`
  /// says it all).
  public var errno: Errno
  /// Said instead of the errno's text when the call itself succeeded but the
  /// object is wrong ("not a regular file but a FIFO").
  public var reason: String?
  /// The device or file, when `operation` is a bare call name (`open`, `EVIOCGRAB`).
  public var path: String?
  public init(_ operation: String, _ errno: Errno, reason: String? = nil) {
    self.operation = operation
    self.errno = errno
    self.reason = reason
  }
  /// `call` on `path` failed: "PATH: CALL failed: TEXT".
  public init(_ call: String, path: String, _ errno: Errno) {
    self.init(call, errno)
    self.path = path
  }
  /// A failure that is no system call's: `text` is the whole message.
  public static func failure(_ text: String) -> SystemError { SystemError(text, Errno(0)) }
  /// The reason, or the errno's text.
  public var detail: String { reason ?? errno.description }
  public var description: String {
    if let path { return "\(path): \(operation) failed: \(detail)" }
    if errno.rawValue == 0 && reason == nil { return operation }
    return "\(operation): \(detail)"
  }
}
