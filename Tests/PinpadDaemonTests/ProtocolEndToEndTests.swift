import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// docs/protocol.md, "Socket: framing", and issue 4 where only the process shows it:
/// clients that vanish mid-write (EPIPE, never SIGPIPE, in the daemon's own process). The
/// rest is `ProtocolTests`.
@Suite struct ProtocolEndToEndTests {
  @Test func clientsThatVanishMidWriteDoNotHurtTheDaemon() throws {
    // The code comes once the vandals below are gone (a client connected when it comes
    // would be handed it), with room for a loaded machine.
    let daemon = try RunningDaemon(recording: E2E.recording("5555\n", firstGap: 3))
    // Many requests, then gone before reading a reply: the daemon's writes get EPIPE
    // or ECONNRESET, never a signal.
    for _ in 0..<5 {
      let c = try daemon.connect()
      var burst: [UInt8] = []
      for _ in 0..<2000 { burst += Array("{\"type\":\"status\"}\n".utf8) }
      c.sendRaw(burst)
      c.close()
    }
    // A process killed while it holds a half-written line.
    let listener = try RunningProcess(E2E.pinpadctl, ["--socket", daemon.socket, "listen"])
    E2E.sleep(0.2)
    listener.kill()
    let half = try daemon.connect()
    half.send("{\"type\":\"verdict\",\"id\":\"")
    half.close()

    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 15)).message
    #expect(code.string("code") == "5555")
    #expect(try client.status() != nil)
    #expect(daemon.isRunning)
    #expect(daemon.stop() == 0)
  }
}
