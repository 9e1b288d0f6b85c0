import Foundation
import Glibc
import PinpadSystem
import PinpadTestSupport
import Testing

/// sd_notify (systemd Type=notify): READY=1, a STATUS= line as each code is checked and
/// decided, STOPPING=1, all on $NOTIFY_SOCKET, sent from one socket the daemon keeps.
@Suite struct NotifyEndToEndTests {
  /// A datagram socket bound at `path`, as systemd's notify socket.
  final class NotifyReceiver {
    private let socket: OwnedDescriptor
    var fd: Int32 { socket.fd.rawValue }
    init(path: String) throws {
      unlink(path)
      socket = OwnedDescriptor(
        taking: Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
      let fd = socket.fd.rawValue
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in path.utf8.enumerated() { raw[i] = b }
      }
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      guard fd >= 0, bound == 0 else { throw ClientError("bind \(path): \(errno)") }
    }

    /// The messages that arrive until `until` holds for one, or `timeout` passes.
    func receive(timeout: Double, until: (String) -> Bool) -> [String] {
      var got: [String] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      let end = E2E.now() + timeout
      while E2E.now() < end {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(max(1, (end - E2E.now()) * 1000))) == 1 else { break }
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { break }
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        got.append(text)
        if until(text) { break }
      }
      return got
    }
  }

  @Test func readyStatusPerCodeAndStoppingArriveAlsoWhenTheReceiverIsMadeAgain() throws {
    let dir = TempDir()
    let path = dir.file("notify.sock")
    var receiver = try NotifyReceiver(path: path)
    let daemon = try RunningDaemon(
      recording: E2E.recording("1234\n|5678\n", firstGap: 0.5, pause: 1.5), dir: dir,
      launcher: ["/usr/bin/env", "NOTIFY_SOCKET=\(path)"])
    let client = try daemon.connect()
    let ready = receiver.receive(timeout: 5) { $0.contains("READY=1") }
    #expect(ready.contains { $0.contains("READY=1") }, "\(ready)")
    for round in 0..<2 {
      let code = try #require(try client.waitFor("code", timeout: 10)).message
      client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "granted"])
      let got = receiver.receive(timeout: 5) { $0 == "STATUS=Waiting for keys" }
      #expect(got.contains("STATUS=Checking attempt \(code.string("id")!)"), "\(got)")
      #expect(got.contains("STATUS=Waiting for keys"), "\(got)")
      if round == 0 {
        // systemd restarted its socket: the next lines reach the new one.
        receiver = try NotifyReceiver(path: path)
      }
    }
    daemon.signal(SIGTERM)
    let stopping = receiver.receive(timeout: 5) { $0.contains("STOPPING=1") }
    #expect(stopping.contains { $0.contains("STOPPING=1") }, "\(stopping)")
    #expect(daemon.stop() == 0)
  }
}
