import Glibc
import PinpadCore
import PinpadDaemon
import PinpadSystem

/// The `--codes FILE` of `pinpadctl serve` as it is on disk (SPEC §9.3, `CodesFile`):
/// re-read when it changes; a bad line is reported as `FILE:LINE: message` and skipped.
/// A file that others (neither its owner nor its group) may read or write is not used:
/// hashes of short codes are cheap to guess, and anyone who can write it could add
/// their own.
struct WatchedCodesFile {
  let path: String
  private(set) var entries: [CodesFile.Entry] = []
  /// What identifies the file's content on disk: a change means "read it again".
  private var stamp: FileStatus? = nil
  private var unreadable = false
  /// Why the file on disk is not used (others may read or write it), nil when it is.
  private(set) var refusal: String? = nil

  init(path: String) { self.path = path }

  /// Reads the file again when its inode, size, mode or modification time changed (or
  /// on the first call). Returns the problems of a fresh read, or nil when nothing
  /// changed. A file that cannot be read, or is refused, keeps the previous entries.
  mutating func reloadIfChanged() -> [String]? {
    let now: FileStatus
    do { now = try FileSystem.status(path) } catch {
      stamp = nil
      if unreadable { return nil }  // said once; the previous entries stay in force
      unreadable = true
      return ["\(path): cannot read: \(error.errno)"]
    }
    unreadable = false
    guard now != stamp else { return nil }
    if let why = CodesFile.modeProblem(now.mode) {
      let said = refusal != nil
      refusal = "\(path): \(why); not used until fixed (chmod o-rwx \(path))"
      stamp = nil
      return said ? nil : [refusal!]  // the previous entries stay in force
    }
    refusal = nil
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 16 << 20) } catch {
      return ["\(error)"]
    }
    stamp = now
    let parsed = CodesFile.parse(bytes, path: path)
    entries = parsed.entries
    return parsed.problems
  }
}

/// The key file of the codes file's tags (`--key FILE`, `CodeTagKey`): 64 hex digits on
/// one line, for its owner (and group) alone, like the codes file.
enum TagKeyFile {
  static func load(_ path: String) throws(ControlError) -> CodeTagKey {
    let status: FileStatus
    do { status = try FileSystem.status(path) } catch {
      throw ControlError("\(path): cannot read the key file: \(error.errno)")
    }
    if let why = CodesFile.modeProblem(status.mode) {
      throw ControlError("\(path): \(why); the key is not used (chmod o-rwx \(path))")
    }
    var bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 4096) } catch {
      throw ControlError("\(path): cannot read the key file: \(error.errno)")
    }
    defer { for i in bytes.indices { bytes[i] = 0 } }
    guard let key = CodeTagKey(file: bytes) else {
      throw ControlError("\(path): not a key file (one line of 64 hex digits)")
    }
    return key
  }

  /// Makes a new key file (32 bytes from getrandom(2), mode 0600); fails if it exists.
  static func create(_ path: String) throws(ControlError) -> CodeTagKey {
    var key = FileSystem.randomBytes(CodeTagKey.size)
    defer { for i in key.indices { key[i] = 0 } }
    var text = Array(CodeTagKey.fileText(key).utf8)
    defer { for i in text.indices { text[i] = 0 } }
    do {
      let file = try OwnedDescriptor.open(
        path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, mode: 0o600)
      try file.fd.writeAll(text)
    } catch {
      throw ControlError("\(path): cannot create the key file: \(error)")
    }
    return CodeTagKey(key: key)
  }
}
