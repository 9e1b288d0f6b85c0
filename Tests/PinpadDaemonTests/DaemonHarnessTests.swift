import Foundation
import PinpadCore
import PinpadTestSupport
import Testing

@testable import PinpadDaemon

/// The harness itself: the real daemon in this process answers over its socket, takes
/// typed keys, and keeps to the manual clock.
@Suite struct DaemonHarnessTests {
  @Test func aTypedCodeReachesTheControllerAndItsVerdictEveryClient() throws {
    let harness = try DaemonHarness()
    let controller = try harness.connect()
    let bystander = try harness.connect()
    harness.type("1234\n")
    let code = try #require(try controller.waitFor("code", timeout: 3)).message
    #expect(code.string("code") == "1234")
    let id = try #require(code.string("id"))
    controller.send(json: ["type": "verdict", "id": id, "result": "granted"])
    let seen = try #require(try bystander.waitFor("verdict", timeout: 3)).message
    #expect(seen.string("id") == id && seen.string("result") == "granted")
    #expect(!shows("1234", in: harness.log))
    #expect(harness.stop() == 0)
  }

  @Test func timeStandsStillUntilTheTestMovesIt() throws {
    // InterKeyTimeoutSec=5: an entry left half-typed is cleared after 5 s, and not before.
    let harness = try DaemonHarness(config: "[Entry]\nLength=4\nInterKeyTimeoutSec=5\n")
    let client = try harness.connect()
    harness.type("12")
    #expect(try client.waitFor("entry", timeout: 3) { $0.int("length") == 2 } != nil)
    // 0.1 s after the last key already: 4.8 more is still inside the 5 s.
    harness.advance(4.8)
    #expect(try client.waitFor("entry", timeout: 0.2) { $0.string("event") == "timeout" } == nil)
    harness.advance(0.2)
    #expect(try client.waitFor("entry", timeout: 3) { $0.string("event") == "timeout" } != nil)
    #expect(harness.stop() == 0)
  }
}
