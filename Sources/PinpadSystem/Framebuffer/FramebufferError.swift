import Glibc

/// A failed framebuffer or virtual-terminal call, with what was being done and to what
/// ("FBIOGET_VSCREENINFO on /dev/fb0: Inappropriate ioctl for device").
public struct FramebufferError: Error, CustomStringConvertible, Sendable {
  public var operation: String
  /// The errno value, 0 when the failure was not a system call's.
  public var code: Int32
  public init(_ operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }
  public var description: String {
    code == 0 ? operation : "\(operation): \(String(cString: strerror(code)))"
  }
}

/// Runs a call returning -1 with errno on failure, retrying EINTR.
@inline(__always)
func framebufferCall(_ operation: @autoclosure () -> String, _ body: () -> Int32) throws -> Int32 {
  while true {
    let rc = body()
    if rc != -1 { return rc }
    let code = errno
    if code != EINTR { throw FramebufferError(operation(), code: code) }
  }
}
