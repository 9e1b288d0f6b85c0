/// One line of /proc/PID/maps (proc(5)), as far as locking needs it:
/// `start-end perms offset dev inode [path]`.
public struct MemoryMapping: Equatable, Sendable {
  public let start: UInt
  public let end: UInt
  /// The second of the four permission letters (`rw-p`).
  public let writable: Bool
  /// The inode of the file behind it; 0 for anonymous memory, the heap, the stacks and
  /// the kernel's [vdso], [vvar] and [vsyscall].
  public let inode: UInt64

  public init(start: UInt, end: UInt, writable: Bool, inode: UInt64) {
    self.start = start
    self.end = end
    self.writable = writable
    self.inode = inode
  }

  public var byteCount: Int { Int(end - start) }

  /// Whether `ProcessSetup.unlockReadOnlyFileMappings` unlocks it: backed by a file and
  /// not writable. Its pages are the file's own (code, constants, the gaps between a
  /// library's segments), which the kernel drops under pressure and reads back, never
  /// writes to swap; or, for RELRO, pointers the loader relocated before the pages were
  /// made read-only. None holds anything typed. Everything writable (data, bss, the heap,
  /// the stacks, every buffer of the daemon, a framebuffer) and every anonymous mapping
  /// stays locked.
  public var needsNoLock: Bool { inode != 0 && !writable }

  /// Every well-formed line of `text` (the whole of a maps file), in order; a line that
  /// is not (a truncated last line) is left out, so it is never unlocked.
  public static func parse(_ text: [UInt8]) -> [MemoryMapping] {
    var mappings: [MemoryMapping] = []
    var lineStart = 0
    while lineStart < text.count {
      var lineEnd = lineStart
      while lineEnd < text.count && text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
      if lineEnd < text.count, let mapping = MemoryMapping(line: text[lineStart..<lineEnd]) {
        mappings.append(mapping)
      }
      lineStart = lineEnd + 1
    }
    return mappings
  }

  /// `start-end perms offset dev inode [path]`; nil when a field is missing or malformed.
  init?(line: ArraySlice<UInt8>) {
    // The path may hold spaces: it is the sixth field and the rest, never read.
    let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5)
    guard fields.count >= 5 else { return nil }
    let range = fields[0].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
    guard range.count == 2, let start = Self.number(range[0], radix: 16),
      let end = Self.number(range[1], radix: 16), start < end
    else { return nil }
    let perms = Array(fields[1])
    guard perms.count == 4, perms[1] == UInt8(ascii: "w") || perms[1] == UInt8(ascii: "-"),
      Self.number(fields[2], radix: 16) != nil,
      let inode = Self.number(fields[4], radix: 10)
    else { return nil }
    self.init(start: start, end: end, writable: perms[1] == UInt8(ascii: "w"), inode: UInt64(inode))
  }

  /// The digits of `field` in `radix` (16: lower- or uppercase), nil when empty, when
  /// another byte is there, or past UInt.max.
  private static func number(_ field: ArraySlice<UInt8>, radix: UInt) -> UInt? {
    guard !field.isEmpty, field.count <= 20 else { return nil }
    var value: UInt = 0
    for byte in field {
      let digit: UInt
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16:
        digit = UInt(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16:
        digit = UInt(byte - UInt8(ascii: "A") + 10)
      default: return nil
      }
      let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
      guard !overflow else { return nil }
      let (sum, carry) = shifted.addingReportingOverflow(digit)
      guard !carry else { return nil }
      value = sum
    }
    return value
  }
}
