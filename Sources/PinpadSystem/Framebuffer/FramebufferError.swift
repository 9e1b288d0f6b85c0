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

/// `syscall`, failing with a `FramebufferError` that says what was being done.
@inline(__always)
func framebufferCall(_ operation: @autoclosure () -> String, _ body: () -> Int32) throws -> Int32 {
  do { return try syscall(body) } catch {
    throw FramebufferError(operation(), code: error.rawValue)
  }
}
