import Foundation
import Glibc
import Testing

/// Issue 15 on the real daemon in this process (`DaemonHarness`): a client that does not
/// read keeps no code; lockout state that cannot be saved is retried. What needs the
/// process (descriptor limits, RSS, locked pages) is in `SocketHygieneEndToEndTests`.
@Suite struct SocketHygieneTests {
  @Test func aStalledClientIsDroppedWithItsUnreadCodeOnceTheAttemptIsDecided() throws {
    let harness = try DaemonHarness()
    let good = try harness.connect()
    let stalled = try harness.connect()
    try fillKernelBuffer(of: stalled, watchedBy: good, queued: 1)
    harness.type("1234\n")
    let code = try #require(try good.waitFor("code", timeout: 10)).message
    #expect(!harness.log.contains("had not read a code"))
    good.send(json: ["type": "verdict", "id": code.string("id")!, "result": "granted"])
    #expect(try good.waitFor("verdict", timeout: 5) != nil)
    #expect(harness.log.contains("had not read a code when its attempt was decided"))
    // What reached the stalled client's kernel buffer was status replies, never the code.
    var lines: [String] = []
    while let line = stalled.nextLine(timeout: 2) { lines.append(line) }
    #expect(stalled.closedByPeer)
    #expect(!lines.isEmpty)
    #expect(!lines.contains { $0.contains("\"code\"") })
    #expect(try good.status()?.int("queued_bytes") == 0)
    #expect(harness.stop() == 0)
  }

  @Test func aFailedSaveIsRetriedAndShownInStatus() throws {
    let harness = try DaemonHarness()
    let client = try harness.connect()
    #expect(try client.status()?["lockouts_saved"] as? Bool == true)
    // The state directory disappears under the daemon (and a file takes its name).
    try FileManager.default.removeItem(atPath: harness.stateDir)
    harness.dir.write("state", "in the way")
    harness.type("1234\n")
    let code = try #require(try client.waitFor("code", timeout: 10)).message
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    #expect(try client.waitFor("verdict", timeout: 5) != nil)
    #expect(harness.log.contains("cannot save lockout state"))
    #expect(try client.status()?["lockouts_saved"] as? Bool == false)
    // Retries while the directory is still missing fail quietly (one line in all).
    harness.advance(30)
    #expect(!harness.log.contains("lockout state saved again"))
    // Once the directory is back, the next retry saves it.
    unlink(harness.stateDir)
    mkdir(harness.stateDir, 0o700)
    var waited = 0.0
    while !harness.log.contains("lockout state saved again"), waited < 30 {
      harness.advance(0.5)
      waited += 0.5
    }
    #expect(harness.log.contains("lockout state saved again"), "not within 30 s")
    #expect(harness.dir.read("state/lockout").contains("default 1 0 0"))
    #expect(try client.status()?["lockouts_saved"] as? Bool == true)
    #expect(harness.log.components(separatedBy: "cannot save lockout state").count == 2)
    #expect(harness.stop() == 0)
  }
}
