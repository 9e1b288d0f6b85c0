import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// Once up, pinpadd gives back the pages of code and constants that only its start
/// touched (`ProcessSetup.releaseReadOnlyPages`): what stays resident is what the
/// running loop uses. That what comes back is locked again under the shipped unit
/// (RLIMIT_MEMLOCK unlimited, which this machine's hard limit does not allow) is
/// checked by the QEMU case systemd-service.
@Suite("Start-up code given back")
struct StartupPagesEndToEndTests {
  /// VmHWM is the peak of VmRSS, reached before the release; a daemon that kept its
  /// start's pages would be at its peak still.
  @Test func theDaemonGivesBackThePagesOnlyItsStartTouched() throws {
    let daemon = try RunningDaemon(recording: E2E.recording("1234\n"), logLevel: "info")
    let client = try daemon.connect()
    #expect(try client.waitFor("code", timeout: 5) != nil, "the daemon still works")
    // The release comes 0.1 s after the start (Daemon.afterSetUpDelay): before the code,
    // unless a loaded machine held the daemon back.
    var resident = 0
    var peak = 0
    let givenBack = E2E.waitUntil(timeout: 5) {
      resident = (try? statusKiB(daemon.pid, "VmRSS")) ?? 0
      peak = (try? statusKiB(daemon.pid, "VmHWM")) ?? 0
      return peak - resident >= 1024
    }
    print("start-up pages: VmRSS \(resident) KiB after a code, VmHWM \(peak) KiB")
    #expect(givenBack, "only \(peak - resident) KiB given back")
    #expect(!daemon.log.contains("start-up code"), "a release failed: \(daemon.log)")
    #expect(daemon.stop() == 0)
  }
}
