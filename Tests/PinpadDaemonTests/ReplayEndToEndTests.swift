import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// Recordings replayed into the real daemon; a client on the real socket sees the
/// entry, the code and the verdicts (pinpadd(8), OPTIONS, --input; docs/protocol.md,
/// "Socket").
@Suite struct ReplayEndToEndTests {
  @Test func timedReplayShowsEntryEventsThenTheCodeWithLeadingZeros() throws {
    let daemon = try RunningDaemon(recording: E2E.recording("0007\n", firstGap: 0.6))
    let client = try daemon.connect()
    #expect(client.hello.string("type") == "hello")
    #expect(client.hello.int("protocol") == 1)
    #expect(client.hello.string("version")?.isEmpty == false)

    let got = try #require(try client.waitFor("code", timeout: 5))
    #expect(got.message.string("code") == "0007")
    #expect(got.message.string("keypad") == "default")
    let entries = got.before.filter { $0.string("type") == "entry" }
    #expect(entries.first?.string("event") == "started")
    #expect(entries.map { $0.int("length") ?? -1 } == [1, 2, 3, 4])
    #expect(entries.allSatisfy { $0["code"] == nil })
    let at = try #require(got.message.string("at"))
    #expect(at.hasSuffix("Z") && at.contains("T"))

    let id = try #require(got.message.string("id"))
    client.send(json: ["type": "verdict", "id": id, "result": "granted", "message": "Welcome"])
    let verdict = try #require(try client.waitFor("verdict", timeout: 3))
    #expect(verdict.message.string("id") == id)
    #expect(verdict.message.string("result") == "granted")
    #expect(daemon.stop() == 0)
  }

  @Test func fastReplayDeliversTheHeldCodeToTheFirstClient() throws {
    let daemon = try RunningDaemon(recording: E2E.recording("00420E", keypad: true), fast: true)
    let client = try daemon.connect()
    let got = try #require(try client.waitFor("code", timeout: 5))
    #expect(got.message.string("code") == "00420")
    #expect(daemon.stop() == 0)
  }

  /// The replay reads its file in 64 KiB chunks: 4000 SYN_REPORT lines (108 KB) put
  /// chunk boundaries inside event lines before the code's keys.
  @Test func aRecordingLongerThanOneReadChunkReplaysEveryKey() throws {
    let padding = String(repeating: "E: 0.000000 0000 0000 0000\n", count: 4000)
    let daemon = try RunningDaemon(
      recording: padding + E2E.recording("0042E", keypad: true), fast: true)
    let client = try daemon.connect()
    let got = try #require(try client.waitFor("code", timeout: 5))
    #expect(got.message.string("code") == "0042")
    #expect(daemon.stop() == 0)
  }

  @Test func aBadLinePastTheFirstChunkFailsTheStartNamingItsLine() throws {
    let dir = TempDir()
    let lines = String(repeating: "E: 1.000000 0001 004f 0001\n", count: 3000)
    let path = dir.write("bad.evemu", lines + "E: soon 0001 004f 0001\n")
    let run = try runProgram(
      E2E.pinpadd,
      [
        "--config", dir.write("c.conf", ""), "--input", "replay-fast:" + path,
        "--display", "none", "--socket", dir.file("s.sock"), "--state-dir", dir.file("state"),
      ])
    #expect(run.status != 0)
    #expect(
      run.stderr.contains("\(path):3001: soon is not a timestamp like 1700000000.123456"),
      "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.file("s.sock")))
  }

  @Test func fixedLengthSubmitsWithoutEnterAndIgnoresExtraDigits() throws {
    let daemon = try RunningDaemon(
      config: "[Entry]\nLength=4\n", recording: E2E.recording("43219"), fast: true)
    let client = try daemon.connect()
    let got = try #require(try client.waitFor("code", timeout: 5))
    #expect(got.message.string("code") == "4321")
    // The fifth digit comes while the code is being checked: no second code.
    #expect(try client.waitFor("code", timeout: 0.5) == nil)
    #expect(daemon.stop() == 0)
  }
}
