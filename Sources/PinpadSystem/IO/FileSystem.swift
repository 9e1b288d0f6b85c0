import CPinpadShim
import Glibc

/// The few file operations the daemon needs, with errors that name the path.
public enum FileSystem {
  /// The whole file, or an error naming the path ("cannot read X: No such file or directory").
  public static func read(_ path: String, limit: Int = 16 << 20) throws(SystemError) -> [UInt8] {
    let fd: FileDescriptor
    do { fd = try FileDescriptor.open(path, O_RDONLY) } catch {
      throw SystemError("cannot read \(path)", error)
    }
    defer { fd.close() }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw SystemError("cannot read \(path)", .current)
      }
      if n == 0 { break }
      result.append(contentsOf: chunk[0..<n])
      if result.count > limit { throw SystemError("cannot read \(path)", Errno(EFBIG)) }
    }
    return result
  }

  public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  public static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Names in a directory (no "." or ".."), sorted bytewise; empty when it does not exist.
  public static func list(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
  }

  /// mkdir -p with `mode` for the folders it makes.
  public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      current += "/" + part
      if mkdir(current, mode) != 0 && errno != EEXIST {
        throw SystemError("cannot create \(current)", .current)
      }
    }
  }

  /// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over
  /// `path` and fsyncs the folder: readers see the old or the new file, never half.
  public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600)
    throws(SystemError)
  {
    let temp = path + ".tmp"
    let fd: FileDescriptor
    do { fd = try FileDescriptor.open(temp, O_WRONLY | O_CREAT | O_TRUNC, mode: mode) } catch {
      throw SystemError("cannot write \(temp)", error)
    }
    do {
      try fd.writeAll(bytes)
      _ = try syscall { fsync(fd.rawValue) }
      fd.close()
    } catch {
      fd.close()
      unlink(temp)
      throw SystemError("cannot write \(temp)", error)
    }
    if rename(temp, path) != 0 {
      let error = Errno.current
      unlink(temp)
      throw SystemError("cannot rename \(temp) to \(path)", error)
    }
    let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    if let dirfd = try? FileDescriptor.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY) {
      fsync(dirfd.rawValue)
      dirfd.close()
    }
  }

  public static func remove(_ path: String) { unlink(path) }
}

extension FileSystem {
  /// chown(path, -1, gid).
  public static func setGroup(_ path: String, _ gid: UInt32) throws(SystemError) {
    if chown(path, uid_t.max, gid) != 0 {
      throw SystemError("cannot set the group of \(path)", .current)
    }
  }

  /// chmod(2).
  public static func setMode(_ path: String, _ mode: mode_t) throws(SystemError) {
    if chmod(path, mode) != 0 { throw SystemError("cannot chmod \(path)", .current) }
  }

  /// Runs `body` with the process umask set to `mask` (so a socket is born with the
  /// right mode, with no window where it is wider).
  public static func withUmask<R>(_ mask: mode_t, _ body: () throws -> R) rethrows -> R {
    let old = umask(mask)
    defer { umask(old) }
    return try body()
  }

  /// True when `path` is a socket file.
  public static func isSocket(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
  }

  /// Random bytes from getrandom(2), e.g. for attempt id prefixes.
  public static func randomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    _ = bytes.withUnsafeMutableBytes { pinpad_getrandom($0.baseAddress, UInt($0.count)) }
    return bytes
  }
}
