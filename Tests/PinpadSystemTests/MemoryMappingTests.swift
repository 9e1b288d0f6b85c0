import PinpadSystem
import Testing

/// Which lines of /proc/PID/maps pinpadd unlocks after `mlockall`
/// (`ProcessSetup.unlockReadOnlyFileMappings`): a file's mappings that are not writable.
@Suite struct MemoryMappingTests {
  /// pinpadd's maps under the unit (trimmed): the program, the loader, libc and libevdev,
  /// each with RELRO, data and bss; a font mapped read-only; the heap, anonymous memory,
  /// a client's output queue (its own mapping), a framebuffer, the stack and the kernel's.
  static let sample = """
    55d0c8a00000-55d0c8c4e000 r--p 00000000 fe:00 1311                       /usr/sbin/pinpadd
    55d0c8c4e000-55d0c9255000 r-xp 0024e000 fe:00 1311                       /usr/sbin/pinpadd
    55d0c9255000-55d0c92a1000 r--p 00855000 fe:00 1311                       /usr/sbin/pinpadd
    55d0c92a1000-55d0c92a9000 rw-p 008a1000 fe:00 1311                       /usr/sbin/pinpadd
    55d0c92a9000-55d0c92c4000 rw-p 00000000 00:00 0 
    55d0ca1e0000-55d0ca201000 rw-p 00000000 00:00 0                          [heap]
    7f3a10000000-7f3a10042000 rw-p 00000000 00:00 0 
    7f3a10042000-7f3a14000000 ---p 00000000 00:00 0 
    7f3a16a00000-7f3a16a2c000 r--p 00000000 fe:00 262401                     /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
    7f3a16b00000-7f3a16b28000 r--p 00000000 fe:00 2883                       /usr/lib/x86_64-linux-gnu/libc.so.6
    7f3a16b28000-7f3a16c9d000 r-xp 00028000 fe:00 2883                       /usr/lib/x86_64-linux-gnu/libc.so.6
    7f3a16c9d000-7f3a16cf5000 r--p 0019d000 fe:00 2883                       /usr/lib/x86_64-linux-gnu/libc.so.6
    7f3a16cf5000-7f3a16cf6000 ---p 001f5000 fe:00 2883                       /usr/lib/x86_64-linux-gnu/libc.so.6
    7f3a16cf6000-7f3a16cfa000 r--p 001f5000 fe:00 2883                       /usr/lib/x86_64-linux-gnu/libc.so.6
    7f3a16cfa000-7f3a16cfc000 rw-p 001f9000 fe:00 2883                       /usr/lib/x86_64-linux-gnu/libc.so.6
    7f3a16cfc000-7f3a16d09000 rw-p 00000000 00:00 0 
    7f3a16d40000-7f3a16d82000 rw-p 00000000 00:00 0 
    7f3a16e00000-7f3a16f77000 rw-s 00000000 00:05 1042                       /dev/fb0
    7f3a16f80000-7f3a16f84000 r--p 00000000 fe:00 3011                       /usr/lib/x86_64-linux-gnu/libevdev.so.2.3.0
    7f3a16f84000-7f3a16f8e000 r-xp 00004000 fe:00 3011                       /usr/lib/x86_64-linux-gnu/libevdev.so.2.3.0
    7f3a16f8e000-7f3a16f97000 r--p 0000e000 fe:00 3011                       /usr/lib/x86_64-linux-gnu/libevdev.so.2.3.0
    7f3a16f97000-7f3a16f98000 r--p 00016000 fe:00 3011                       /usr/lib/x86_64-linux-gnu/libevdev.so.2.3.0
    7f3a16f98000-7f3a16f99000 rw-p 00017000 fe:00 3011                       /usr/lib/x86_64-linux-gnu/libevdev.so.2.3.0
    7f3a16fa0000-7f3a16fa1000 r--p 00000000 fe:00 2870                       /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
    7f3a16fa1000-7f3a16fc6000 r-xp 00001000 fe:00 2870                       /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
    7f3a16fd0000-7f3a16fd2000 rw-p 00035000 fe:00 2870                       /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
    7f3a16fd2000-7f3a16fd3000 r--s 00000000 00:01 4096                       /memfd:pinpadd-test (deleted)
    7ffc3c1a8000-7ffc3c1c9000 rw-p 00000000 00:00 0                          [stack]
    7ffc3c1f1000-7ffc3c1f5000 r--p 00000000 00:00 0                          [vvar]
    7ffc3c1f5000-7ffc3c1f7000 r-xp 00000000 00:00 0                          [vdso]
    ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]

    """

  @Test func unlocksTheReadOnlyMappingsOfFilesOnly() {
    let mappings = MemoryMapping.parse(Array(Self.sample.utf8))
    #expect(mappings.count == 31)
    let unlocked = mappings.filter(\.needsNoLock).map { String($0.start, radix: 16) }
    #expect(
      unlocked == [
        // pinpadd: header and constants, code, RELRO (its data stays locked)
        "55d0c8a00000", "55d0c8c4e000", "55d0c9255000",
        "7f3a16a00000",  // the font
        // libc: constants, code, constants, the gap between its segments, RELRO
        "7f3a16b00000", "7f3a16b28000", "7f3a16c9d000", "7f3a16cf5000", "7f3a16cf6000",
        // libevdev and the loader
        "7f3a16f80000", "7f3a16f84000", "7f3a16f8e000", "7f3a16f97000",
        "7f3a16fa0000", "7f3a16fa1000",
        "7f3a16fd2000",  // a file mapped shared but read-only
      ])
    // Everything else stays locked: every writable mapping (data, bss, the heap, the
    // output queue, the framebuffer, the stack) and every anonymous one (the arena's
    // reserve, the kernel's [vvar], [vdso], [vsyscall]).
    let kept = mappings.filter { !$0.needsNoLock }
    #expect(kept.count == 15)
    #expect(kept.allSatisfy { $0.writable || $0.inode == 0 })
    #expect(
      mappings.first { $0.start == 0x7f3a16e00000 }
        == MemoryMapping(start: 0x7f3a16e00000, end: 0x7f3a16f77000, writable: true, inode: 1042))
    #expect(mappings.first { $0.start == 0x55d0c8c4e000 }?.byteCount == 0x607000)
  }

  /// A line that is not a mapping (cut short, a field missing or not a number) is left
  /// out, so it is never unlocked; the ones around it are read.
  @Test(arguments: [
    "7f3a16b28000-7f3a16c9d000 r-xp 00028000 fe:00",  // no inode
    "7f3a16b28000 r-xp 00028000 fe:00 2883 /usr/lib/libc.so.6",  // no end
    "7f3a16c9d000-7f3a16b28000 r-xp 00028000 fe:00 2883 /usr/lib/libc.so.6",  // end first
    "7f3a16b28000-7f3a16c9d000 r-x 00028000 fe:00 2883 /usr/lib/libc.so.6",  // 3 letters
    "7f3a16b28000-7f3a16c9d000 rzxp 00028000 fe:00 2883 /usr/lib/libc.so.6",
    "7f3a16b28000-7f3a16c9d000 r-xp 0002800g fe:00 2883 /usr/lib/libc.so.6",
    "7f3a16b28000-7f3a16c9d000 r-xp 00028000 fe:00 28x3 /usr/lib/libc.so.6",
    "7f3a16b28000-7f3a16c9d0000000000000000 r-xp 00028000 fe:00 2883 /usr/lib/libc.so.6",
    "",
  ])
  func malformedLinesAreLeftOut(_ line: String) {
    let text = """
      55d0c8a00000-55d0c8c4e000 r--p 00000000 fe:00 1311 /usr/sbin/pinpadd
      \(line)
      7f3a16fa1000-7f3a16fc6000 r-xp 00001000 fe:00 2870 /usr/lib/ld linux.so.2

      """
    let starts = MemoryMapping.parse(Array(text.utf8)).map(\.start)
    #expect(starts == [0x55d0c8a00000, 0x7f3a16fa1000])
  }

  /// A last line without its line feed (a read cut short) is not trusted.
  @Test func aLastLineWithoutItsLineFeedIsLeftOut() {
    let text = "55d0c8a00000-55d0c8c4e000 r--p 00000000 fe:00 1311 /usr/sbin/pinpadd\n"
      + "7f3a16fa1000-7f3a16fc6000 r-xp 00001000 fe:00 28"
    #expect(MemoryMapping.parse(Array(text.utf8)).map(\.start) == [0x55d0c8a00000])
  }

  /// This process's own maps: every line read, as many as /proc says.
  @Test func readsThisProcesssMaps() throws {
    var text: [UInt8] = []
    try FileSystem.readChunks("/proc/self/maps") { text.append(contentsOf: $0); return true }
    let lines = text.split(separator: UInt8(ascii: "\n")).count
    let mappings = MemoryMapping.parse(text)
    #expect(mappings.count == lines)
    #expect(mappings.contains { $0.needsNoLock })
    #expect(mappings.contains { $0.writable && $0.inode == 0 })
  }
}
