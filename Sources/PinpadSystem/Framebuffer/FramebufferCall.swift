import Glibc

/// `syscall`, failing with a `SystemError` that says what was being done and to what
/// ("FBIOGET_VSCREENINFO on /dev/fb0: Inappropriate ioctl for device").
@inline(__always)
func framebufferCall(_ operation: @autoclosure () -> String, _ body: () -> Int32) throws -> Int32 {
  do { return try syscall(body) } catch {
    throw SystemError(operation(), error)
  }
}
