import Foundation
import Glibc
import Testing

/// SPEC §4.4: held codes, dropped codes, verdict timeouts, first verdict wins.
@Suite struct DeliveryEndToEndTests {
  @Test func aCodeWaitsForAClientThatConnectsWithinTheDeliveryTimeout() throws {
    let daemon = try RunningDaemon(
      config: "[Socket]\nDeliveryTimeoutSec=4\n", recording: E2E.recording("2580\n"), fast: true)
    E2E.sleep(1.0)
    let client = try daemon.connect()
    let got = try #require(try client.waitFor("code", timeout: 3))
    #expect(got.message.string("code") == "2580")
    #expect(daemon.stop() == 0)
  }

  @Test func aCodeNobodyTakesIsDroppedAfterTheDeliveryTimeout() throws {
    let daemon = try RunningDaemon(
      config: "[Socket]\nDeliveryTimeoutSec=0.3\n", recording: E2E.recording("2580\n"), fast: true)
    #expect(E2E.waitUntil(timeout: 5) { daemon.log.contains("code wiped") })
    let client = try daemon.connect()
    #expect(try client.waitFor("code", timeout: 0.5) == nil)
    let status = try #require(try client.status())
    #expect(status.int("pending") == 0)
    #expect(daemon.stop() == 0)
  }

  @Test func noVerdictWithinTheVerdictTimeoutIsBroadcastAsTimeout() throws {
    let daemon = try RunningDaemon(
      config: "[Socket]\nVerdictTimeoutSec=0.5\n", recording: E2E.recording("2580\n"), fast: true)
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 3)).message
    let start = E2E.now()
    let verdict = try #require(try client.waitFor("verdict", timeout: 3)).message
    #expect(verdict.string("id") == code.string("id"))
    #expect(verdict.string("result") == "timeout")
    #expect(E2E.now() - start > 0.3)
    // A late verdict for a timed-out attempt is refused, saying so.
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "granted"])
    let error = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(
      error.string("reason") == "attempt \(code.string("id")!) timed out: no verdict within 0.5 s")
    let late = try runProgram(
      E2E.pinpadctl, ["--socket", daemon.socket, "verdict", code.string("id")!, "denied"])
    #expect(late.status == 1)
    #expect(late.stderr.contains("timed out"), "\(late.stderr)")
    #expect(daemon.stop() == 0)
  }

  @Test func theFirstVerdictWinsAndASecondGetsAnError() throws {
    let daemon = try RunningDaemon(recording: E2E.recording("1357\n", firstGap: 0.6))
    let first = try daemon.connect()
    let second = try daemon.connect()
    let code = try #require(try first.waitFor("code", timeout: 5)).message
    let other = try #require(try second.waitFor("code", timeout: 2)).message
    #expect(other.string("id") == code.string("id"))
    let id = try #require(code.string("id"))

    first.send(json: ["type": "verdict", "id": id, "result": "granted"])
    for client in [first, second] {
      let verdict = try #require(try client.waitFor("verdict", timeout: 3)).message
      #expect(verdict.string("id") == id)
      #expect(verdict.string("result") == "granted")
    }
    second.send(json: ["type": "verdict", "id": id, "result": "denied"])
    let error = try #require(try second.waitFor("error", timeout: 3)).message
    #expect(error.string("reason")?.contains("already decided") == true)
    // No second verdict event went out.
    #expect(try first.waitFor("verdict", timeout: 0.3) == nil)
    #expect(daemon.stop() == 0)
  }

  @Test func aVerdictForAnUnknownIdGetsAnError() throws {
    let daemon = try RunningDaemon()
    let client = try daemon.connect()
    client.send(json: ["type": "verdict", "id": "no-such-attempt", "result": "granted"])
    let error = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(error.string("reason") == "unknown attempt id")
    #expect(try client.status() != nil)
    #expect(daemon.stop() == 0)
  }
}
