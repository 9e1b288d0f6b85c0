import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// Issue 15: the socket and the process under pressure: who is admitted, what stays in
/// memory, descriptors and memory running out, the socket file on exit, pages locked.
@Suite struct SocketHygieneEndToEndTests {
  // MARK: 2. Groups come from the peer, not from /etc/group

  /// A user that /etc/group lists as a member of a group that is not its primary one
  /// (postgres in ssl-cert on the reference machine), nil when the system has none.
  static let listedMember:
    (user: String, uid: UInt32, primary: UInt32, group: String, gid: UInt32)? = {
      setgrent()
      defer { endgrent() }
      while let entry = getgrent() {
        var members = entry.pointee.gr_mem
        while let member = members?.pointee {
          let user = String(cString: member)
          if let pw = getpwnam(member), pw.pointee.pw_gid != entry.pointee.gr_gid,
            pw.pointee.pw_uid != 0
          {
            return (
              user, pw.pointee.pw_uid, pw.pointee.pw_gid, String(cString: entry.pointee.gr_name),
              entry.pointee.gr_gid
            )
          }
          members = members?.advanced(by: 1)
        }
      }
      return nil
    }()

  @Test(
    .enabled(if: getuid() == 0 && listedMember != nil, "needs root and a user listed in a group"))
  func groupsAreTheConnectionsNotTheGroupDatabases() throws {
    let member = try #require(Self.listedMember)
    let primaryName = String(cString: getgrgid(member.primary)!.pointee.gr_name)
    let daemon = try RunningDaemon(
      config: "[Socket]\nGroup=\(primaryName)\nAllowUsers=root\nAllowGroups=\(member.group)\n")
    chmod(daemon.dir.path, 0o755)
    func statusAs(_ uid: UInt32, groups: String) throws -> Finished {
      try runProgram(
        "/usr/bin/setpriv",
        [
          "--reuid=\(uid)", "--regid=\(member.primary)", groups, E2E.pinpadctl,
          "--socket", daemon.socket, "status",
        ])
    }
    // Holding the group only at run time (as SupplementaryGroups= gives it): admitted.
    let runtime = try statusAs(65534, groups: "--groups=\(member.gid)")
    #expect(runtime.stdout.contains("\"type\":\"status\""), "\(runtime.stderr)")
    // Listed in /etc/group, but the process dropped every group: refused.
    let dropped = try statusAs(member.uid, groups: "--clear-groups")
    #expect(!dropped.stdout.contains("\"type\":\"status\""))
    #expect(daemon.log.contains("socket: refused uid \(member.uid)"), "\(daemon.log)")
    // Neither: refused.
    let neither = try statusAs(65534, groups: "--clear-groups")
    #expect(!neither.stdout.contains("\"type\":\"status\""))
    #expect(daemon.stop() == 0)
  }

  // MARK: 5. On exit only the socket this process bound is removed

  @Test func stoppingLeavesASuccessorsSocketAndARegularFileInPlace() throws {
    let first = try RunningDaemon()
    unlink(first.socket)
    let second = try RunningDaemon(socketPath: first.socket)
    #expect(first.stop() == 0)
    #expect(first.log.contains("is no longer the socket this process bound"))
    #expect(second.isAnswering(), "the newer daemon lost its socket")
    // A regular file put in its place is not removed either.
    unlink(second.socket)
    _ = FileManager.default.createFile(atPath: second.socket, contents: Data("keep".utf8))
    #expect(second.stop() == 0)
    #expect((try? String(contentsOfFile: second.socket, encoding: .utf8)) == "keep")
    // Its own socket is removed as before.
    unlink(second.socket)
    let third = try RunningDaemon(socketPath: second.socket)
    #expect(third.stop() == 0)
    #expect(!FileManager.default.fileExists(atPath: third.socket))
  }

  // MARK: 6. Lockout state that cannot be saved

  @Test func aStateDirectoryThatCannotBeWrittenFailsTheStart() throws {
    let dir = TempDir()
    dir.write("state", "a file, not a directory")
    let daemon = try RunningDaemon(dir: dir, waitForSocket: false)
    #expect(daemon.waitExit(timeout: 5) == 69)
    #expect(daemon.log.contains("state directory:"), "\(daemon.log)")
    #expect(daemon.log.contains("--state-dir none"))
  }

  @Test func stateDirNoneRunsWithLockoutsInMemoryOnly() throws {
    let daemon = try RunningDaemon(extraArguments: ["--state-dir", "none"])
    let status = try #require(try daemon.connect().status())
    #expect(status["lockouts_saved"] as? Bool == false)
    #expect(daemon.stop() == 0)
    #expect(!FileManager.default.fileExists(atPath: daemon.dir.file("none")))
  }

  // MARK: 8. At the descriptor limit: no spin, no flood, a good client served

  @Test func atTheDescriptorLimitTheDaemonIdlesLogsOnceAndStillServes() throws {
    let daemon = try RunningDaemon(
      recording: E2E.recording("1234\n", firstGap: 4.0),
      launcher: ["/usr/bin/prlimit", "--nofile=64:64", "--"])
    let good = try daemon.connect()
    var flood: [TestClient] = []
    for _ in 0..<80 { flood.append(try TestClient(path: daemon.socket, expectHello: false)) }
    E2E.sleep(0.5)
    let before = try cpuSeconds(daemon.pid)
    E2E.sleep(5)
    let spent = try cpuSeconds(daemon.pid) - before
    print(
      "descriptor limit: \(String(format: "%.3f", spent)) s of CPU in 5 s with 80 clients over 64")
    #expect(spent < 1.0, "the accept loop spins: \(spent) s of CPU in 5 s")
    let log = daemon.log
    #expect(log.components(separatedBy: "cannot accept clients").count == 2, "\(log.suffix(2000))")
    #expect(!log.contains("accept failed"))
    // The good client is served, and a lockout is still saved (the reserve descriptor).
    good.send(json: ["type": "status"])
    let answer = try #require(try good.waitFor("status", timeout: 5))
    let early = answer.before.first { $0.string("type") == "code" }
    let code = try #require(try early ?? good.waitFor("code", timeout: 10)?.message)
    good.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    #expect(try good.waitFor("verdict", timeout: 5) != nil)
    #expect(
      E2E.waitUntil(timeout: 3) { daemon.dir.read("state/lockout").contains("default 1 0 0") })
    #expect(!daemon.log.contains("cannot save lockout state"))
    // The refused ones were told why; once they go, new clients get in again.
    #expect(flood.contains { $0.nextLine(timeout: 0.1)?.contains("too many clients") == true })
    for client in flood { client.close() }
    flood = []
    #expect(E2E.waitUntil(timeout: 5) { (try? daemon.connect()) != nil })
    #expect(daemon.log.contains("accepting clients again"))
    #expect(daemon.stop() == 0)
  }

  @Test func theSoftDescriptorLimitIsRaisedToTheHardOne() throws {
    let daemon = try RunningDaemon(launcher: ["/usr/bin/prlimit", "--nofile=256:4096", "--"])
    let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
    let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
    #expect(
      line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2)
        == ["4096", "4096"], "\(line)")
    #expect(daemon.stop() == 0)
  }

  // MARK: 11. All backlogs together are capped

  @Test func stalledClientsTogetherCannotQueueMoreThanTheTotalCap() throws {
    let daemon = try RunningDaemon()
    let good = try daemon.connect()
    let rssBefore = try residentKiB(daemon.pid)
    var stalled: [TestClient] = []
    // The first one shows how many requests leave about 160 KiB queued in the daemon.
    let first = try daemon.connect()
    let batches = try fillKernelBuffer(of: first, watchedBy: good, queued: 160 * 1024)
    stalled.append(first)
    let batch = String(repeating: "{\"type\":\"status\"}\n", count: 50)
    for _ in 1..<24 {
      let client = try daemon.connect()
      for _ in 0..<batches { client.send(batch) }
      stalled.append(client)
      E2E.sleep(0.05)
      let queued = try #require(try good.status()?.int("queued_bytes"))
      #expect(queued <= 2 * 1024 * 1024, "\(queued) bytes queued in all")
    }
    let rssAfter = try residentKiB(daemon.pid)
    print("stalled clients: RSS \(rssBefore) KiB before, \(rssAfter) KiB with 24 stalled clients")
    #expect(daemon.log.contains("in all)"), "no client was dropped for the total")
    #expect(try good.status() != nil)
    #expect(daemon.stop() == 0)
  }

  // MARK: 1. The pages that hold digits are locked

  /// Under mlockall (root's CAP_IPC_LOCK lifts the 8 MiB limit, as the unit's
  /// LimitMEMLOCK=infinity does): every writable page stays locked, the entry's digits
  /// and a client's output queue among them, found by what they hold; the read-only
  /// mappings of the program and its libraries (code, constants: no digit) are unlocked
  /// (issue 55), so VmLck counts only the writable ones.
  @Test(
    .enabled(
      if: getuid() == 0, "locking pages under an 8 MiB RLIMIT_MEMLOCK needs root here"))
  func pagesAreLockedWhileAnEntryIsOpen() throws {
    let daemon = try RunningDaemon(
      config: "[Entry]\nInterKeyTimeoutSec=30\n", recording: E2E.recording("31415926"),
      launcher: ["/usr/bin/prlimit", "--memlock=8388608:8388608", "--"])
    let client = try daemon.connect()
    #expect(try client.waitFor("entry", timeout: 5) { $0.int("length") == 8 } != nil)
    // A client that stops reading: its status replies wait in the daemon's output queue.
    let stalled = try daemon.connect()
    try fillKernelBuffer(of: stalled, watchedBy: client, queued: 64 * 1024)
    let locked = try vmLockedKiB(daemon.pid)
    let maps = try ProcessMappings(daemon.pid)
    let readOnlyFileKiB = maps.readOnlyFile.reduce(0) { $0 + $1.sizeKiB }
    let writableKiB = maps.writable.reduce(0) { $0 + $1.sizeKiB }
    print(
      "VmLck with an entry open: \(locked) kB; writable mappings \(writableKiB) kB, "
        + "read-only file mappings \(readOnlyFileKiB) kB")
    #expect(locked > 0)
    let lockedReadOnly = maps.readOnlyFile.filter { $0.locked || $0.lockedKiB > 0 }
    #expect(lockedReadOnly.isEmpty, "\(lockedReadOnly.map(\.summary))")
    let unlockedWritable = maps.writable.filter { !$0.locked }
    #expect(unlockedWritable.isEmpty, "\(unlockedWritable.map(\.summary))")
    #expect(locked <= maps.mappings.filter { !$0.fileBacked || $0.writable }.reduce(0) {
      $0 + $1.sizeKiB
    })
    // The entry's slot (32 bytes: the 8 digits as values, then zeros) is in a locked
    // mapping, and resident there.
    let slot: [UInt8] = [3, 1, 4, 1, 5, 9, 2, 6] + [UInt8](repeating: 0, count: 24)
    let slots = maps.addresses(of: slot, alignment: 32)
    #expect(!slots.isEmpty, "the entry's digits were not found in a writable mapping")
    for address in slots {
      let mapping = maps.mapping(holding: address)
      #expect(mapping?.locked == true && mapping!.lockedKiB > 0, "\(mapping?.summary ?? "")")
    }
    // The stalled client's output queue: the mapping that holds its waiting replies.
    let replies = maps.addresses(of: Array(#"{"type":"status","#.utf8))
    let queues = Dictionary(grouping: replies) { maps.mapping(holding: $0)?.start ?? 0 }
      .filter { $0.value.count >= 100 }.keys
    #expect(!queues.isEmpty, "no mapping holds the stalled client's replies")
    for start in queues {
      let mapping = maps.mapping(holding: start)
      #expect(mapping?.locked == true && mapping!.lockedKiB > 0, "\(mapping?.summary ?? "")")
    }
    stalled.close()
    #expect(daemon.stop() == 0)
  }
}

/// Sends `client` status requests without reading the replies until the daemon holds
/// at least `queued` bytes for it (the kernel's socket buffer being full), as `watcher`
/// (a client that reads) sees in `status`. Returns how many batches of 50 it took.
@discardableResult
func fillKernelBuffer(of client: TestClient, watchedBy watcher: TestClient, queued: Int)
  throws -> Int
{
  let base = try #require(try watcher.status()?.int("queued_bytes"))
  let batch = String(repeating: "{\"type\":\"status\"}\n", count: 50)
  for batches in 1...2000 {
    client.send(batch)
    if let now = try watcher.status()?.int("queued_bytes"), now - base >= queued {
      return batches
    }
  }
  Issue.record("the daemon never queued \(queued) bytes for the stalled client")
  return 0
}

/// utime + stime of `pid`, in seconds.
private func cpuSeconds(_ pid: Int32) throws -> Double {
  let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
  let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
  let ticks = Double(fields[11])! + Double(fields[12])!
  return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

private func statusField(_ pid: Int32, _ name: String) throws -> Int {
  let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
  let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(name + ":") })
  return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])!
}

private func vmLockedKiB(_ pid: Int32) throws -> Int { try statusField(pid, "VmLck") }
private func residentKiB(_ pid: Int32) throws -> Int { try statusField(pid, "VmRSS") }
