import Glibc

extension FileSystem {
  /// Reads the regular file at `path` in chunks of up to `chunkSize` bytes, giving each
  /// to `body` (valid only during the call) until the end or until `body` returns false.
  /// Opened with O_NONBLOCK and checked with fstat first, so a FIFO, a device or a
  /// directory in its place is refused at once instead of blocking; a file past `limit`
  /// bytes is refused (EFBIG) once that much has been read. `read` is this, gathered.
  public static func readChunks(
    _ path: String, chunkSize: Int = 65536, limit: Int = 16 << 20,
    _ body: (UnsafeRawBufferPointer) -> Bool
  ) throws(SystemError) {
    let file: OwnedDescriptor
    do { file = try OwnedDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) } catch {
      throw SystemError("cannot read \(path)", error)
    }
    let fd = file.fd
    var info = stat()
    if fstat(fd.rawValue, &info) != 0 { throw SystemError("cannot read \(path)", .current) }
    if let kind = irregularKind(info.st_mode) {
      throw SystemError(
        "cannot read \(path)", Errno(EINVAL), reason: "not a regular file but \(kind)")
    }
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: max(1, chunkSize), alignment: 16)
    defer { buffer.deallocate() }
    var total = 0
    while true {
      let n: Int
      do { n = try fd.read(into: buffer) } catch {
        throw SystemError("cannot read \(path)", error)
      }
      if n == 0 { return }
      total += n
      if total > limit { throw SystemError("cannot read \(path)", Errno(EFBIG)) }
      if !body(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { return }
    }
  }
}
