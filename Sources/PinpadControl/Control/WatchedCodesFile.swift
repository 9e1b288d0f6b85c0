import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// The `--codes FILE` of `pinpadctl serve` as it is on disk (docs/protocol.md, "Codes
/// file: format"; `CodesFile`): re-read when it changes; a bad line is reported as
/// `FILE:LINE: message` and skipped. A file that others (neither its owner nor its group)
/// may read or write is not used: hashes of short codes are cheap to guess, and anyone
/// who can write it could add their own. Revocation is what matters most: whenever the
/// path is anything but a readable, valid codes file (gone, a directory, a dangling
/// symlink, refused for its mode, over 16 MiB, unreadable), every code is denied until a
/// good file is back, with one line for each change of what is wrong.
struct WatchedCodesFile {
  static let maxBytes = 16 << 20
  let path: String
  private(set) var entries: [CodesFile.Entry] = []
  /// The file's bytes as `entries` were read from (the replicas copy its lines
  /// verbatim); empty when it cannot be used.
  private(set) var text: [UInt8] = []
  /// What identifies the file's content on disk: a change means "read it again".
  private var stamp: FileStatus? = nil
  /// What was last said about the file not being usable (to say each problem once).
  private var problem: String? = nil
  /// Why the file on disk is not used (others may read or write it), nil when it is.
  private(set) var refusal: String? = nil

  init(path: String) { self.path = path }

  /// Reads the file again when its inode, size, mode or modification time changed (or
  /// on the first call). Returns the problems of a fresh read, or nil when nothing
  /// changed. A file that cannot be used empties the entries: everyone is denied.
  mutating func reloadIfChanged() -> [String]? {
    let now: FileStatus
    do { now = try FileSystem.status(path) } catch {
      return unusable("\(path): cannot read: \(error.errno)")
    }
    guard now != stamp else { return nil }
    if let why = CodesFile.modeProblem(now.mode) {
      let line = "\(path): \(why); not used until fixed (chmod o-rwx \(path))"
      let said = unusable(line)
      refusal = line
      return said
    }
    refusal = nil
    if now.mode & 0o170000 != 0o100000 {
      return unusable("\(path): not a regular file")
    }
    if now.size > Int64(WatchedCodesFile.maxBytes) {
      return unusable("\(path): larger than 16 MiB")
    }
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: WatchedCodesFile.maxBytes) } catch {
      return unusable("\(error)")
    }
    stamp = now
    let parsed = CodesFile.parse(bytes, path: path)
    entries = parsed.entries
    text = bytes
    if problem != nil {
      problem = nil
      return ["\(path): read again; \(entries.count) usable lines"] + parsed.problems
    }
    return parsed.problems
  }

  /// The file cannot be used: nobody is granted until it can. `line` is returned (to
  /// be logged) only when it differs from what was said last.
  private mutating func unusable(_ line: String) -> [String]? {
    stamp = nil
    entries = []
    text = []
    guard line != problem else { return nil }
    problem = line
    return [line + "; every code is denied until it is back"]
  }
}

/// The key file of the codes file's tags (`--key FILE`, `CodeTagKey`): 64 hex digits on
/// one line, for its owner (and group) alone, like the codes file.
enum TagKeyFile {
  static func load(_ path: String) throws(ControlError) -> CodeTagKey {
    var key = try loadBytes(path)
    defer { explicitZero(&key, key.count) }
    return CodeTagKey(key: key)
  }

  /// The key file's 32 bytes (for a replica's `tag-key`); the caller zeroes them.
  static func loadBytes(_ path: String) throws(ControlError) -> [UInt8] {
    var bytes: [UInt8]
    do { bytes = try KeyFile.read(path, limit: 4096, secret: true) } catch {
      throw ControlError(error.description)
    }
    defer { explicitZero(&bytes, bytes.count) }
    guard let key = CodeTagKey.keyBytes(file: bytes) else {
      throw ControlError("\(path): not a key file (one line of 64 hex digits)")
    }
    return key
  }

  /// The key file that goes with the codes file `codes`: `CODES.key` beside it.
  static func besideCodes(_ codes: String) -> String { codes + ".key" }

  enum Beside {
    case key(CodeTagKey, created: Bool)
    /// No key: the codes file does not exist (why nil), or the key cannot be read or made.
    case none(String?)
  }

  /// The key beside `codes`, made (with the codes file's owner, group and permission
  /// bits) when the codes file exists and the key does not.
  static func besideCodesFile(_ codes: String) -> Beside {
    var info = stat()
    guard stat(codes, &info) == 0 else { return .none(nil) }
    let path = besideCodes(codes)
    if FileSystem.exists(path) {
      do { return .key(try load(path), created: false) } catch { return .none(error.description) }
    }
    do {
      let mode = mode_t(info.st_mode & 0o660) | 0o600
      let made = try create(path, owner: (info.st_uid, info.st_gid), mode: mode)
      return .key(made, created: true)
    } catch {
      // Made at the same moment by another `hash`: use that one.
      if FileSystem.exists(path), let other = try? load(path) { return .key(other, created: false) }
      return .none(error.description)
    }
  }

  /// Makes a new key file (32 bytes from getrandom(2), mode 0600, or `owner` and `mode`);
  /// fails if it exists.
  static func create(
    _ path: String, owner: (uid_t, gid_t)? = nil, mode: mode_t = 0o600
  ) throws(ControlError) -> CodeTagKey {
    var key = FileSystem.randomBytes(CodeTagKey.size)
    defer { for i in key.indices { key[i] = 0 } }
    var text = Array(CodeTagKey.fileText(key).utf8)
    defer { for i in text.indices { text[i] = 0 } }
    do {
      let file = try OwnedDescriptor.open(
        path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, mode: 0o600)
      if let owner, geteuid() == 0, fchown(file.fd.rawValue, owner.0, owner.1) != 0 {
        throw SystemError("fchown", path: path, .current)
      }
      if fchmod(file.fd.rawValue, mode) != 0 {
        throw SystemError("fchmod", path: path, .current)
      }
      try file.fd.writeAll(text)
    } catch {
      throw ControlError("\(path): cannot create the key file: \(error)")
    }
    return CodeTagKey(key: key)
  }
}
