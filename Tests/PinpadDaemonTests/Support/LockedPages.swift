import Foundation
import Glibc
import PinpadSystem

/// A process's mappings as /proc/PID/smaps shows them, for the tests of which pages are
/// locked (VmLck): each with its size, what of it is resident and locked, and whether
/// the kernel marks it locked (VmFlags `lo`: every page of it is locked as it is
/// touched). Read as root: pinpadd is not dumpable, and only CAP_SYS_PTRACE reads its
/// smaps and its memory then.
struct ProcessMappings {
  struct Mapping {
    let start: UInt
    let end: UInt
    let perms: String
    let inode: UInt64
    let path: String
    var sizeKiB = 0
    var rssKiB = 0
    var lockedKiB = 0
    var flags: [Substring] = []

    var writable: Bool { perms.dropFirst().first == "w" }
    var readable: Bool { perms.first == "r" }
    var fileBacked: Bool { inode != 0 }
    /// VmFlags `lo` (VM_LOCKED: mlock, or mlockall's MCL_CURRENT/MCL_FUTURE).
    var locked: Bool { flags.contains("lo") }
    var summary: String {
      "\(String(start, radix: 16))-\(String(end, radix: 16)) \(perms) \(path) "
        + "(\(sizeKiB) kB, Rss \(rssKiB), Locked \(lockedKiB), \(flags.joined(separator: " ")))"
    }
  }

  let pid: Int32
  let mappings: [Mapping]

  init(_ pid: Int32) throws {
    self.pid = pid
    // Read to its end (Foundation's String(contentsOfFile:) stops at the first 4 KiB of
    // a /proc file, whose size is 0).
    let text = String(decoding: try FileSystem.read("/proc/\(pid)/smaps"), as: UTF8.self)
    var mappings: [Mapping] = []
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      if let first = fields.first, first.contains("-"), !first.hasSuffix(":"), fields.count >= 5 {
        let range = first.split(separator: "-")
        mappings.append(
          Mapping(
            start: UInt(range[0], radix: 16)!, end: UInt(range[1], radix: 16)!,
            perms: String(fields[1]), inode: UInt64(fields[4])!,
            path: fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : ""))
      } else if !mappings.isEmpty, fields.count >= 2 {
        let value = Int(fields[1]) ?? 0
        switch fields[0] {
        case "Size:": mappings[mappings.count - 1].sizeKiB = value
        case "Rss:": mappings[mappings.count - 1].rssKiB = value
        case "Locked:": mappings[mappings.count - 1].lockedKiB = value
        case "VmFlags:":
          mappings[mappings.count - 1].flags = line.split(separator: " ").dropFirst().map { $0 }
        default: break
        }
      }
    }
    self.mappings = mappings
  }

  /// What pinpadd unlocks after mlockall: a file's mappings that are not writable.
  var readOnlyFile: [Mapping] { mappings.filter { $0.fileBacked && !$0.writable } }
  /// Where every buffer is: the writable mappings (anonymous memory, the heap, the stacks,
  /// the data of the program and its libraries).
  var writable: [Mapping] { mappings.filter(\.writable) }

  func mapping(holding address: UInt) -> Mapping? {
    mappings.first { $0.start <= address && address < $0.end }
  }

  /// Every address in the process's writable mappings where `bytes` lie (at a multiple
  /// of `alignment`), read through /proc/PID/mem.
  func addresses(of bytes: [UInt8], alignment: UInt = 1) -> [UInt] {
    guard let memoryFile = try? OwnedDescriptor.open("/proc/\(pid)/mem", O_RDONLY) else {
      return []
    }
    var found: [UInt] = []
    for mapping in writable where mapping.readable {
      var memory = [UInt8](repeating: 0, count: Int(mapping.end - mapping.start))
      let n = memory.withUnsafeMutableBytes {
        pread(memoryFile.fd.rawValue, $0.baseAddress, $0.count, off_t(bitPattern: mapping.start))
      }
      guard n == memory.count, memory.count >= bytes.count else { continue }
      var offset = 0
      while offset + bytes.count <= memory.count {
        if memory[offset] == bytes[0], memory[offset..<offset + bytes.count].elementsEqual(bytes) {
          found.append(mapping.start + UInt(offset))
        }
        offset += Int(alignment)
      }
    }
    return found
  }
}
