import CPinpadShim
import Glibc

/// Process-wide settings made once at start, before any thread exists.
public enum ProcessSetup {
  /// PR_SET_DUMPABLE 0: no core dump, no ptrace attach by the same user, and
  /// /proc/PID/mem unreadable: a code in memory stays there.
  ///
  /// Also gives the crash signals back their default action. The Swift runtime's
  /// backtracer (on by default on Linux) catches them and prints registers with the
  /// memory they point at to stderr, i.e. to the journal, where a code's digits could
  /// land; and under systemd it held a watchdog-aborted pinpadd for a minute or more
  /// (SIGABRT) before TimeoutAbortSec= killed it. With the default action the process
  /// ends at once (no core: it is not dumpable) and Restart= brings it back.
  public static func forbidDumps() {
    _ = pinpad_forbid_dumps()
    for signal in [SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS] {
      _ = Glibc.signal(signal, SIG_DFL)
    }
  }

  /// Large buffers (128 KiB and more: a client's output queue, a recording's text) each
  /// get their own mapping, given back to the kernel when freed. glibc would otherwise
  /// raise that threshold after the first such free and serve later ones from the heap,
  /// which it seldom shrinks: after 1000 clients had come and gone, the daemon kept
  /// some 50 MiB it no longer used (`make bench`: rss_kib_after_stalled_clients).
  /// Returns whether glibc took the setting.
  @discardableResult
  public static func returnLargeBuffersWhenFreed() -> Bool {
    pinpad_set_mmap_threshold(128 * 1024) == 1
  }

  /// Locks present and future pages in memory so digits are never swapped out, when
  /// the memlock limit allows it: RLIMIT_MEMLOCK unlimited, or CAP_IPC_LOCK (the shipped
  /// unit gives both). Returns whether pages are locked. With a small limit and no
  /// capability nothing is locked: MCL_FUTURE would make later allocations fail.
  /// MCL_ONFAULT: a page is locked when it is first touched, so code and data that never
  /// run cost nothing.
  @discardableResult
  public static func lockMemoryIfAllowed() -> Bool {
    guard pinpad_may_lock_all() == 1 else { return false }
    return mlockall(Int32(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) == 0
  }

  /// After `lockMemoryIfAllowed`: unlocks (munlock(2)) every mapping /proc/self/maps lists
  /// now that is backed by a file and not writable (`MemoryMapping.needsNoLock`): the
  /// code and constants of the program, its libraries and the loader, their RELRO and
  /// the gaps between their segments, a font file mapped read-only. A file's clean page
  /// is dropped under pressure and read back, never written to swap, so locking it keeps
  /// no digit from the disk; it only kept every page the start touched locked for good
  /// (bench/README.md, "Issue 55: locked pages"). What is writable or anonymous, where
  /// every digit is (the entry's slots, the socket's buffers, the heap, the stacks),
  /// stays locked. No page is dropped and none faulted: what is resident stays so, and
  /// the kernel may reclaim it under pressure like any file's cache.
  /// MCL_FUTURE still locks what is mapped later, read-only files too (the daemon calls
  /// this again after each reload, which is what maps fonts and NSS modules).
  /// Call it with no other thread running (a mapping unmapped and another made at its
  /// place between the read and the munlock would be unlocked): pinpadd has one.
  public static func unlockReadOnlyFileMappings() -> MappingsUnlocked {
    var done = MappingsUnlocked()
    let text: [UInt8]
    do { text = try FileSystem.read("/proc/self/maps", limit: 4 << 20) } catch {
      done.failure = error.description
      return done
    }
    for mapping in MemoryMapping.parse(text) where mapping.needsNoLock {
      if munlock(UnsafeRawPointer(bitPattern: mapping.start), mapping.byteCount) == 0 {
        done.mappings += 1
        done.bytes += mapping.byteCount
      } else if done.failure == nil {
        done.failure = "munlock: \(Errno.current)"
      }
    }
    return done
  }

  /// What `unlockReadOnlyFileMappings` did: how many mappings and bytes it unlocked
  /// (those already unlocked counted again), and the first error (a mapping whose
  /// munlock failed stays locked).
  public struct MappingsUnlocked: Sendable {
    public var mappings = 0
    public var bytes = 0
    public var failure: String?
  }

  /// mlock(2) of the pages under `count` bytes at `address`, so what they hold is never
  /// written to swap. Best effort: false when RLIMIT_MEMLOCK (without CAP_IPC_LOCK)
  /// does not allow more. Pages are not unlocked again: a heap page may hold several
  /// secrets, and a freed one is reused for the next.
  @discardableResult
  public static func lockPages(_ address: UnsafeRawPointer, _ count: Int) -> Bool {
    guard count > 0 else { return true }
    return mlock(address, count) == 0
  }

  /// Sets the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit.
  @discardableResult
  public static func raiseDescriptorLimit() -> Int? {
    let limit = pinpad_raise_nofile_limit()
    return limit < 0 ? nil : limit
  }

  /// The environment variable's value, nil when unset.
  public static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
  }

  public static func unsetEnvironment(_ name: String) { unsetenv(name) }

  public static var processID: Int32 { getpid() }
  public static var userID: UInt32 { getuid() }
  public static var groupID: UInt32 { getgid() }
}
