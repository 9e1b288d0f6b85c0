import Glibc
import PinpadSystem

/// The `--codes FILE` of `pinpadctl serve`: one `NAME:HASH` line per person, HASH a
/// crypt(3) hash as in /etc/shadow. Empty lines and lines starting with `#` are
/// skipped; a bad line is reported as `FILE:LINE: message` and skipped.
struct CodesFile {
  struct Entry: Equatable {
    var name: String
    var hash: [UInt8]
  }

  let path: String
  private(set) var entries: [Entry] = []
  /// What identifies the file's content on disk: a change means "read it again".
  private var stamp: Stamp? = nil
  private var unreadable = false

  struct Stamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
  }

  init(path: String) { self.path = path }

  /// Parses `text`; problems come back as `FILE:LINE: message` lines.
  static func parse(_ text: String, path: String) -> (entries: [Entry], problems: [String]) {
    var entries: [Entry] = []
    var problems: [String] = []
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    for (index, rawLine) in lines.enumerated() {
      var line = Substring(rawLine)
      if line.last == "\r" { line = line.dropLast() }
      let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      func problem(_ message: String) { problems.append("\(path):\(index + 1): \(message)") }
      guard let colon = line.firstIndex(of: ":") else {
        problem("expected NAME:HASH")
        continue
      }
      let name = line[..<colon]
      let hash = line[line.index(after: colon)...]
      if name.isEmpty {
        problem("the name is empty")
      } else if hash.isEmpty {
        problem("the hash for \(name) is empty")
      } else if hash.contains(where: { $0 == " " || $0 == "\t" || $0 == ":" }) {
        problem("the hash for \(name) contains a space or a colon")
      } else if hash.first == "!" || hash.first == "*" {
        problem("the hash for \(name) is locked or disabled")
      } else if hash.first != "$" && hash.utf8.count != 13 {
        problem("the hash for \(name) is not a crypt(3) hash")
      } else {
        entries.append(Entry(name: String(name), hash: Array(hash.utf8)))
      }
    }
    return (entries, problems)
  }

  /// Reads the file again when its inode, size or modification time changed (or on
  /// the first call). Returns the problems of a fresh read, or nil when nothing changed.
  /// A file that cannot be read keeps the previous entries.
  mutating func reloadIfChanged() -> [String]? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let error = Errno.current
      stamp = nil
      if unreadable { return nil }  // said once; the previous entries stay in force
      unreadable = true
      return ["\(path): cannot read: \(error)"]
    }
    unreadable = false
    let now = Stamp(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec)
    guard now != stamp else { return nil }
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 4 << 20) } catch {
      return ["\(error)"]
    }
    stamp = now
    let parsed = CodesFile.parse(String(decoding: bytes, as: UTF8.self), path: path)
    entries = parsed.entries
    return parsed.problems
  }
}
