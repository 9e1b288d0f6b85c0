import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// docs/protocol.md, "Socket: delivery": held codes, dropped codes, verdict timeouts,
/// first verdict wins. The real daemon in this process (`DaemonHarness`): its timeouts
/// pass on the manual clock.
@Suite struct DeliveryTests {
  @Test func aCodeWaitsForAClientThatConnectsWithinTheDeliveryTimeout() throws {
    let harness = try DaemonHarness(config: "[Socket]\nDeliveryTimeoutSec=4\n")
    harness.type("2580\n")
    harness.advance(3.5)
    #expect(!harness.log.contains("code wiped"))
    let client = try harness.connect()
    let got = try #require(try client.waitFor("code", timeout: 3))
    #expect(got.message.string("code") == "2580")
    #expect(harness.stop() == 0)
  }

  @Test func aCodeNobodyTakesIsDroppedAfterTheDeliveryTimeout() throws {
    let harness = try DaemonHarness(config: "[Socket]\nDeliveryTimeoutSec=0.3\n")
    harness.type("2580\n")
    #expect(!harness.log.contains("code wiped"))
    harness.advance(0.3)
    #expect(harness.log.contains("code wiped"))
    let client = try harness.connect()
    #expect(try client.waitFor("code", timeout: 0.05) == nil)
    let status = try #require(try client.status())
    #expect(status.int("pending") == 0)
    #expect(harness.stop() == 0)
  }

  @Test func noVerdictWithinTheVerdictTimeoutIsBroadcastAsTimeout() throws {
    let harness = try DaemonHarness(config: "[Socket]\nVerdictTimeoutSec=0.5\n")
    let client = try harness.connect()
    harness.type("2580\n")
    let code = try #require(try client.waitFor("code", timeout: 3)).message
    // The code went out as Enter was pressed; 0.1 s have passed since.
    harness.advance(0.35)
    #expect(try client.waitFor("verdict", timeout: 0.05) == nil)
    harness.advance(0.1)
    let verdict = try #require(try client.waitFor("verdict", timeout: 3)).message
    #expect(verdict.string("id") == code.string("id"))
    #expect(verdict.string("result") == "timeout")
    // A late verdict for a timed-out attempt is refused, saying so.
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "granted"])
    let error = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(
      error.string("reason") == "attempt \(code.string("id")!) timed out: no verdict within 0.5 s")
    // pinpadctl says so too, and exits 1.
    let late = try RunningProcess(
      E2E.pinpadctl, ["--socket", harness.socket, "verdict", code.string("id")!, "denied"])
    #expect(harness.turn(until: { !late.process.isRunning }))
    late.process.waitUntilExit()
    #expect(late.process.terminationStatus == 1)
    let stderr = late.stderr.wait()
    #expect(stderr.contains("timed out"), "\(stderr)")
    #expect(harness.stop() == 0)
  }

  @Test func theFirstVerdictWinsAndASecondGetsAnError() throws {
    let harness = try DaemonHarness()
    let first = try harness.connect()
    let second = try harness.connect()
    harness.type("1357\n")
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
    #expect(try first.waitFor("verdict", timeout: 0.05) == nil)
    #expect(harness.stop() == 0)
  }

  @Test func aVerdictForAnUnknownIdGetsAnError() throws {
    let harness = try DaemonHarness()
    let client = try harness.connect()
    client.send(json: ["type": "verdict", "id": "no-such-attempt", "result": "granted"])
    let error = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(error.string("reason") == "unknown attempt id")
    #expect(try client.status() != nil)
    #expect(harness.stop() == 0)
  }
}
