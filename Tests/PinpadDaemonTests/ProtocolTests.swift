import Foundation
import Glibc
import Testing

/// docs/protocol.md, "Socket: framing", and issue 4: what clients send wrong, and clients
/// that misbehave, never affect other clients or the daemon. The real daemon in this
/// process (`DaemonHarness`), its real socket; what needs the process (a client killed
/// mid-line, SIGPIPE) is in `ProtocolEndToEndTests`.
@Suite struct ProtocolTests {
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
    let harness = try DaemonHarness()
    let client = try harness.connect()
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
    #expect(harness.stop() == 0)
  }

  @Test func aLineOverTheLimitClosesOnlyThatConnection() throws {
    let harness = try DaemonHarness()
    let bystander = try harness.connect()
    let client = try harness.connect()
    // Just under the limit is fine.
    let padded = "{\"type\":\"status\"" + String(repeating: " ", count: 4000) + "}\n"
    client.send(padded)
    #expect(try client.waitFor("status", timeout: 3) != nil)
    // Over it, with or without a newline: closed.
    client.send(String(repeating: "x", count: 5000))
    #expect(client.closesWithin(3))
    let other = try harness.connect()
    other.send("{\"type\":\"status\"," + String(repeating: " ", count: 5000) + "}\n")
    #expect(other.closesWithin(3))
    #expect(try bystander.status() != nil)
    #expect(harness.stop() == 0)
  }

  @Test func aLineSplitAcrossWritesAndTwoLinesInOneWriteAreBothRead() throws {
    let harness = try DaemonHarness()
    let client = try harness.connect()
    for part in ["{\"ty", "pe\":", "\"sta", "tus\"}"] {
      client.send(part)
      harness.settle()  // each part read by the daemon on its own
    }
    #expect(try client.waitFor("status", timeout: 0.05) == nil)  // no newline yet
    client.send("\r\n")
    #expect(try client.waitFor("status", timeout: 3) != nil)
    client.send("{\"type\":\"status\"}\n{\"type\":\"status\"}\n")
    #expect(try client.waitFor("status", timeout: 3) != nil)
    #expect(try client.waitFor("status", timeout: 3) != nil)
    #expect(harness.stop() == 0)
  }

  @Test func twoHundredClientsComingAndGoingWhileCodesFlow() throws {
    let codes = ["1111", "2222", "3333"]
    let harness = try DaemonHarness()
    let controller = try harness.connect()
    let socket = harness.socket
    let failures = Counter()
    // Another thread's clients, blocking as any other process's would; this thread
    // turns the daemon's loop meanwhile.
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
    for code in codes {
      harness.turn(milliseconds: 20)
      harness.type(code + "\n")
      let sent = try #require(try controller.waitFor("code", timeout: 5)).message
      seen.append(sent.string("code") ?? "")
      controller.send(json: ["type": "verdict", "id": sent.string("id")!, "result": "granted"])
      let verdict = try #require(
        try controller.waitFor("verdict", timeout: 3) { $0.string("id") == sent.string("id") })
      #expect(verdict.message.string("result") == "granted")
      harness.advance(3)  // the granted screen ends
    }
    #expect(seen == codes)
    #expect(harness.turn(until: { failures.isFinished }, timeout: 30))
    #expect(failures.value == 0, "\(failures.messages)")
    #expect(
      harness.turn(until: { ((try? controller.status(timeout: 1))??.int("clients")) == 1 }))
    #expect(harness.isRunning)
    #expect(harness.stop() == 0)
  }

  @Test func aClientThatStopsReadingDoesNotDelayCodesToAnother() throws {
    let harness = try DaemonHarness()
    let good = try harness.connect()
    let stalled = try harness.connect()
    // The stalled client asks for much and reads nothing: the daemon's writes to it
    // hit a full socket buffer, then its queue limit.
    let request = Array("{\"type\":\"status\"}\n".utf8)
    var flood: [UInt8] = []
    for _ in 0..<4000 { flood += request }
    _ = fcntl(stalled.fd, F_SETFL, O_NONBLOCK)
    var offset = 0
    while offset < flood.count {
      let n = flood.withUnsafeBytes {
        send(stalled.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      if n > 0 { offset += n } else if errno == EAGAIN { harness.turn() } else { break }
    }
    harness.settle()
    #expect(harness.log.contains("stopped reading"))
    // Typed now, the code is in the good client's socket by the end of the last key's
    // turn: nothing the stalled one did holds it back.
    harness.type("9876\n")
    let got = try #require(try good.waitFor("code", timeout: 0.05), "\(harness.log)")
    #expect(got.message.string("code") == "9876")
    let lastEntry = got.before.last { $0.string("type") == "entry" }
    #expect(lastEntry?.int("length") == 4)
    #expect(harness.isRunning)
    #expect(harness.stop() == 0)
  }
}

/// A thread-safe count with a "finished" flag, for work done on other threads.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private var notes: [String] = []
  private var done = false
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
  func finish() {
    lock.lock()
    done = true
    lock.unlock()
  }
  var isFinished: Bool {
    lock.lock()
    defer { lock.unlock() }
    return done
  }
}
