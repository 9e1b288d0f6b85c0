import Foundation
import Glibc
import Testing

/// SPEC §4.3 and issue 4: what clients send wrong, and clients that misbehave, never
/// affect other clients or the daemon.
@Suite struct ProtocolEndToEndTests {
  static let badLines: [(line: String, reason: String)] = [
    ("{nope", "malformed JSON"),
    ("", "malformed JSON"),
    ("[1,2]", "expected a JSON object"),
    ("{\"kind\":\"status\"}", "missing \"type\""),
    ("{\"type\":\"bogus\"}", "unknown type"),
    ("{\"type\":\"verdict\",\"result\":\"granted\"}", "verdict without \"id\""),
    ("{\"type\":\"verdict\",\"id\":\"x-1\",\"result\":\"maybe\"}", "must be granted or denied"),
    (
      "{\"type\":\"verdict\",\"id\":\"x-1\",\"result\":\"denied\",\"message\":5}",
      "must be a string"
    ),
    ("\u{FF}\u{FE}", "malformed JSON"),
  ]

  @Test func eachMalformedLineGetsAnErrorAndTheConnectionKeepsWorking() throws {
    let daemon = try RunningDaemon()
    let client = try daemon.connect()
    for (line, reason) in Self.badLines {
      client.send(line + "\n")
      let error = try #require(
        try client.waitFor("error", timeout: 3), "no error reply to \(line)"
      ).message
      #expect(error.string("reason")?.contains(reason) == true, "\(line): \(error)")
      // The reason never echoes the line back.
      if line.count > 4 { #expect(error.string("reason")?.contains(line) == false) }
    }
    let status = try #require(try client.status())
    #expect(status.int("clients") == 1)
    #expect(daemon.stop() == 0)
  }

  @Test func aLineOverTheLimitClosesOnlyThatConnection() throws {
    let daemon = try RunningDaemon()
    let bystander = try daemon.connect()
    let client = try daemon.connect()
    // Just under the limit is fine.
    let padded = "{\"type\":\"status\"" + String(repeating: " ", count: 4000) + "}\n"
    client.send(padded)
    #expect(try client.waitFor("status", timeout: 3) != nil)
    // Over it, with or without a newline: closed.
    client.send(String(repeating: "x", count: 5000))
    #expect(client.closesWithin(3))
    let other = try daemon.connect()
    other.send("{\"type\":\"status\"," + String(repeating: " ", count: 5000) + "}\n")
    #expect(other.closesWithin(3))
    #expect(try bystander.status() != nil)
    #expect(daemon.stop() == 0)
  }

  @Test func aLineSplitAcrossWritesAndTwoLinesInOneWriteAreBothRead() throws {
    let daemon = try RunningDaemon()
    let client = try daemon.connect()
    for part in ["{\"ty", "pe\":", "\"sta", "tus\"}"] {
      client.send(part)
      E2E.sleep(0.03)
    }
    #expect(try client.waitFor("status", timeout: 0.3) == nil)  // no newline yet
    client.send("\r\n")
    #expect(try client.waitFor("status", timeout: 3) != nil)
    client.send("{\"type\":\"status\"}\n{\"type\":\"status\"}\n")
    #expect(try client.waitFor("status", timeout: 3) != nil)
    #expect(try client.waitFor("status", timeout: 3) != nil)
    #expect(daemon.stop() == 0)
  }

  @Test func twoHundredClientsComingAndGoingWhileCodesFlow() throws {
    let codes = ["1111", "2222", "3333"]
    let daemon = try RunningDaemon(
      recording: E2E.recording(codes.joined(separator: "\n|") + "\n", firstGap: 0.6, pause: 0.3))
    let controller = try daemon.connect()
    let socket = daemon.socket
    let failures = Counter()
    let churn = Thread {
      for i in 0..<200 {
        do {
          let c = try TestClient(path: socket, expectHello: i % 3 != 0)
          if i % 3 == 1 { c.send("{\"type\":\"status\"}\n") }
          if i % 5 == 0 { c.send("{\"type\":\"sta") }  // gone mid-line
          c.close()
        } catch {
          failures.add("client \(i): \(error)")
        }
      }
      failures.finish()
    }
    churn.start()
    var seen: [String] = []
    for _ in codes {
      let code = try #require(try controller.waitFor("code", timeout: 5)).message
      seen.append(code.string("code") ?? "")
      controller.send(json: ["type": "verdict", "id": code.string("id")!, "result": "granted"])
      let verdict = try #require(
        try controller.waitFor("verdict", timeout: 3) { $0.string("id") == code.string("id") })
      #expect(verdict.message.string("result") == "granted")
    }
    #expect(seen == codes)
    #expect(failures.waitFinished(timeout: 10))
    #expect(failures.value == 0, "\(failures.messages)")
    #expect(
      E2E.waitUntil(timeout: 3) {
        ((try? controller.status(timeout: 1))??.int("clients")) == 1
      })
    #expect(daemon.isRunning)
    #expect(daemon.stop() == 0)
  }

  @Test func aClientThatStopsReadingDoesNotDelayCodesToAnother() throws {
    let daemon = try RunningDaemon(recording: E2E.recording("9876\n", firstGap: 1.5))
    let good = try daemon.connect()
    let stalled = try daemon.connect()
    // The stalled client asks for much and reads nothing: the daemon's writes to it
    // hit a full socket buffer, then its queue limit.
    let request = Array("{\"type\":\"status\"}\n".utf8)
    var flood: [UInt8] = []
    for _ in 0..<4000 { flood += request }
    _ = fcntl(stalled.fd, F_SETFL, O_NONBLOCK)
    var offset = 0
    let floodEnd = E2E.now() + 1.0
    while offset < flood.count, E2E.now() < floodEnd {
      let n = flood.withUnsafeBytes {
        send(stalled.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      if n > 0 { offset += n } else if errno == EAGAIN { E2E.sleep(0.002) } else { break }
    }
    let got = try #require(try good.waitFor("code", timeout: 5))
    let received = Date()
    #expect(got.message.string("code") == "9876")
    let lastEntry = got.before.last { $0.string("type") == "entry" }
    #expect(lastEntry?.int("length") == 4)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let at = try #require(formatter.date(from: got.message.string("at") ?? ""))
    let latency = received.timeIntervalSince(at) * 1000
    print("code delivery latency with a stalled client: \(String(format: "%.1f", latency)) ms")
    #expect(latency < 500)
    #expect(daemon.log.contains("stopped reading"))
    #expect(daemon.isRunning)
    #expect(daemon.stop() == 0)
  }

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

/// A thread-safe count with a "finished" flag, for work done on other threads.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private var notes: [String] = []
  private let done = DispatchSemaphore(value: 0)
  func add(_ note: String = "") {
    lock.lock()
    count += 1
    notes.append(note)
    lock.unlock()
  }
  var messages: [String] {
    lock.lock()
    defer { lock.unlock() }
    return notes
  }
  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }
  func finish() { done.signal() }
  func waitFinished(timeout: Double) -> Bool { done.wait(timeout: .now() + timeout) == .success }
}
