import Glibc

extension FileSystem {
  /// Reads the regular file at `path` in chunks of up to `chunkSize` bytes, giving each
  /// to `body` (valid only during the call) until the end or until `body` returns false.
  /// Opened with O_NONBLOCK and checked with fstat first, so a FIFO, a socket, a block
  /// device, a directory or a character device with data (or none yet) in its place is
  /// refused at once instead of blocking; a character device that reads as empty at
  /// once (/dev/null) is an empty file. A file past `limit`
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
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: max(1, chunkSize), alignment: 16)
    defer { buffer.deallocate() }
    if let kind = irregularKind(info.st_mode) {
      // A character device that is at its end at once (/dev/null) is an empty file:
      // `--config /dev/null` means "no configuration". One that has data, or would
      // block (a terminal), is refused like a FIFO, a socket or a directory.
      if info.st_mode & S_IFMT == S_IFCHR, (try? fd.read(into: buffer)) == 0 { return }
      throw SystemError(
        "cannot read \(path)", Errno(EINVAL), reason: "not a regular file but \(kind)")
    }
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
