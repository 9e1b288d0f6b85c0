import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// `--input replay-fast:` stamps keys with their recorded offsets: the core's time runs
/// ahead of the clock by the recording's length, and must keep running from there,
/// while the socket's timeouts stay on the real clock.
@Suite struct ReplayTimeEndToEndTests {
  @Test("a fast replay plays at once, with no client to wake the daemon")
  func playsWithoutAWakeUp() throws {
    let daemon = try RunningDaemon(
      recording: E2E.recording("1234\n"), fast: true, waitForSocket: false)
    // No connection: the log is the only thing read.
    #expect(
      E2E.waitUntil(timeout: 5) { daemon.log.contains("code submitted") },
      "the recording did not play:\n\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test("a timeout after a fast replay comes after its own length, not the recording's")
  func timeoutRunsFromTheReplayedTime() throws {
    // One digit, then another 20 s later in the recording. The first entry times out
    // in replayed time, at once; the second 1 s after its digit: in real time about
    // 1 s after the start, not 21 s.
    let daemon = try RunningDaemon(
      config: "[Entry]\nInterKeyTimeoutSec=1\nTotalTimeoutSec=60\n",
      recording: E2E.recording("1|2", pause: 20), fast: true, waitForSocket: false)
    let start = E2E.now()
    func timeouts() -> Int { daemon.log.components(separatedBy: "entry timed out").count - 1 }
    #expect(E2E.waitUntil(timeout: 6) { timeouts() == 2 }, "not two timeouts:\n\(daemon.log)")
    let elapsed = E2E.now() - start
    print("fast replay: second inter-key timeout after \(elapsed) s (1 s configured)")
    #expect(elapsed > 0.8)
    #expect(daemon.stop() == 0)
  }

  @Test("the verdict timeout is real time even when the replay ran 20 s ahead")
  func verdictTimeoutIsRealTime() throws {
    let daemon = try RunningDaemon(
      config: "[Socket]\nVerdictTimeoutSec=10\n",
      recording: E2E.recording("1234\n|5", pause: 20), fast: true)
    let client = try daemon.connect()
    let code = try client.waitFor("code", timeout: 5)?.message
    let id = try #require(code?.string("id"))
    E2E.sleep(0.5)
    client.send(json: ["type": "verdict", "id": id, "result": "granted"])
    let verdict = try client.waitFor("verdict", timeout: 5)?.message
    #expect(verdict?.string("result") == "granted")
    #expect(daemon.stop() == 0)
  }
}
