import PinpadDaemon
import PinpadSystem

/// The `--codes FILE` of `pinpadctl serve`: one `NAME:HASH` line per person, HASH a
/// crypt(3) hash as in /etc/shadow. Empty lines and lines starting with `#` are
/// skipped; a bad line is reported as `FILE:LINE: message` and skipped. A file that
/// others (neither its owner nor its group) may read or write is not used: hashes of
/// short codes are cheap to guess, and anyone who can write it could add their own.
struct CodesFile {
  struct Entry: Equatable {
    var name: String
    var hash: [UInt8]
  }

  let path: String
  private(set) var entries: [Entry] = []
  /// What identifies the file's content on disk: a change means "read it again".
  private var stamp: FileStatus? = nil
  private var unreadable = false
  /// Why the file on disk is not used (others may read or write it), nil when it is.
  private(set) var refusal: String? = nil

  init(path: String) { self.path = path }

  /// Parses `text`; problems come back as `FILE:LINE: message` lines.
  static func parse(_ text: String, path: String) -> (entries: [Entry], problems: [String]) {
    var entries: [Entry] = []
    var problems: [String] = []
    // Split at LF scalars: as Characters, a CRLF is one "\r\n" that "\n" never matches.
    let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
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
      } else if hash.unicodeScalars.contains(where: { $0 == " " || $0 == ":" || $0.value < 0x20 }) {
        problem("the hash for \(name) contains a space, a colon or a control character")
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

  /// What is wrong with a codes file's permission bits, nil when others have no access.
  static func modeProblem(_ mode: UInt32) -> String? {
    let others = mode & 0o007
    guard others & 0o006 != 0 else { return nil }
    let octal = String(mode & 0o7777, radix: 8)
    let what = others & 0o004 != 0 ? (others & 0o002 != 0 ? "read and write" : "read") : "write"
    return
      "others may \(what) it (mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal))"
  }

  /// Reads the file again when its inode, size or modification time changed (or on
  /// the first call). Returns the problems of a fresh read, or nil when nothing changed.
  /// A file that cannot be read keeps the previous entries.
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
    do { bytes = try FileSystem.read(path, limit: 4 << 20) } catch {
      return ["\(error)"]
    }
    stamp = now
    let parsed = CodesFile.parse(String(decoding: bytes, as: UTF8.self), path: path)
    entries = parsed.entries
    return parsed.problems
  }
}
