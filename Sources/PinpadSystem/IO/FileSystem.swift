import CPinpadShim
import Glibc

/// The few file operations the daemon needs, with errors that name the path.
public enum FileSystem {
  /// The whole regular file, or an error naming the path ("cannot read X: No such file
  /// or directory"). Opened with O_NONBLOCK and checked with fstat before reading, so a
  /// FIFO, a device or a directory in its place is refused at once instead of blocking
  /// (`readChunks`; /dev/null and other devices at their end at once read as empty).
  public static func read(_ path: String, limit: Int = 16 << 20) throws(SystemError) -> [UInt8] {
    var result: [UInt8] = []
    try readChunks(path, limit: limit) { chunk in
      result.append(contentsOf: chunk)
      return true
    }
    return result
  }

  /// What a file of `mode` is when it is not a regular file ("a FIFO"), nil when it is.
  static func irregularKind(_ mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFIFO: return "a FIFO"
    case S_IFDIR: return "a directory"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "an unknown kind of file"
    }
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
      try makeDirectory(current, mode: mode)
    }
  }

  /// mkdir(2) of `path` alone (its parent must exist); one that exists is fine.
  public static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
    if mkdir(path, mode) != 0 && errno != EEXIST {
      throw SystemError("cannot create \(path)", .current)
    }
  }

  /// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over
  /// `path` and fsyncs the folder: readers see the old or the new file, never half.
  /// `sync: false` leaves out the fsyncs (files that need not survive a power cut).
  public static func writeAtomically(
    _ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, sync: Bool = true
  ) throws(SystemError) {
    let temp = path + ".tmp"
    var file: OwnedDescriptor
    // A fresh file: whatever was left at the temporary name (even a FIFO, which would
    // block an open for writing) is removed first, and O_EXCL never follows a link.
    unlink(temp)
    do {
      file = try OwnedDescriptor.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK, mode: mode)
    } catch {
      throw SystemError("cannot write \(temp)", error)
    }
    do {
      let fd = file.fd
      try fd.writeAll(bytes)
      if sync { _ = try syscall { fsync(fd.rawValue) } }
      file.close()
    } catch {
      file.close()
      unlink(temp)
      throw SystemError("cannot write \(temp)", error)
    }
    if rename(temp, path) != 0 {
      let error = Errno.current
      unlink(temp)
      throw SystemError("cannot rename \(temp) to \(path)", error)
    }
    guard sync else { return }
    let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    do {
      let directory = try OwnedDescriptor.open(
        folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY)
      fsync(directory.fd.rawValue)
    } catch {}
  }

  public static func remove(_ path: String) { unlink(path) }

  /// Creates and removes a file in `directory`: whether files can be written there now.
  public static func checkWritable(_ directory: String) throws(SystemError) {
    guard isDirectory(directory) else {
      throw SystemError("cannot write in \(directory)", Errno(ENOTDIR), reason: "not a directory")
    }
    let probe = directory + "/.pinpadd-probe"
    unlink(probe)
    do {
      var file = try OwnedDescriptor.open(
        probe, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK, mode: 0o600)
      file.close()
      unlink(probe)
    } catch {
      throw SystemError("cannot write in \(directory)", error)
    }
  }
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
  public static func withUmask<R: ~Copyable>(_ mask: mode_t, _ body: () throws -> R) rethrows -> R {
    let old = umask(mask)
    defer { umask(old) }
    return try body()
  }

  /// The device and inode of `path` itself (lstat), nil when there is nothing there.
  public static func identity(_ path: String) -> FileIdentity? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  /// stat(2) of `path` (following links): what a reader needs to notice that a file
  /// changed, and its permission bits.
  public static func status(_ path: String) throws(SystemError) -> FileStatus {
    var info = stat()
    guard stat(path, &info) == 0 else { throw SystemError("stat", path: path, .current) }
    return FileStatus(
      identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)),
      size: Int64(info.st_size), modified: (info.st_mtim.tv_sec, info.st_mtim.tv_nsec),
      mode: UInt32(info.st_mode))
  }

  /// Removes `path` only when it is still the file `identity` names: a socket path
  /// taken over by another daemon, or replaced by a regular file, is left alone.
  @discardableResult
  public static func remove(_ path: String, ifStill identity: FileIdentity) -> Bool {
    guard FileSystem.identity(path) == identity else { return false }
    return unlink(path) == 0
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

  /// Fills `buffer` from getrandom(2) (at most 256 bytes: never cut short); false when
  /// the call failed or was cut short anyway.
  public static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
    guard let base = buffer.baseAddress, buffer.count <= 256 else { return false }
    return pinpad_getrandom(base, UInt(buffer.count)) == buffer.count
  }

  /// 8 random bytes from getrandom(2), with no buffer in between.
  public static func randomUInt64() -> UInt64 {
    var value: UInt64 = 0
    _ = withUnsafeMutableBytes(of: &value) { pinpad_getrandom($0.baseAddress, UInt($0.count)) }
    return value
  }
}

/// Which file a path named when it was looked at (st_dev, st_ino).
/// What `FileSystem.status` reports of a file.
public struct FileStatus: Equatable, Sendable {
  public var identity: FileIdentity
  public var size: Int64
  /// Modification time: seconds and nanoseconds.
  public var modified: (seconds: Int, nanoseconds: Int)
  /// st_mode: type and permission bits.
  public var mode: UInt32

  public static func == (a: FileStatus, b: FileStatus) -> Bool {
    a.identity == b.identity && a.size == b.size && a.modified == b.modified && a.mode == b.mode
  }
}

public struct FileIdentity: Equatable, Sendable {
  public var device: UInt64
  public var inode: UInt64
  public init(device: UInt64, inode: UInt64) {
    self.device = device
    self.inode = inode
  }
}
