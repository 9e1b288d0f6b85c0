import Foundation
import Glibc
import PinpadCore
import PinpadProgram
import PinpadSystem
import PinpadTestSupport
import Testing

@testable import PinpadDaemon

/// The socket server's writes (issue 13): what one batch of events queues for a client
/// goes out in one write(2) when the batch ends; a client that stops reading is still
/// dropped, and a code line it has not read is dropped with it once its attempt is
/// decided. A real event loop, a real listening socket and real connected clients.
@Suite struct SocketBatchingTests {
  final class Rig {
    let dir = TempDir()
    let loop: EventLoop
    let server: SocketServer
    let log = MemoryLogSink()
    /// The test's ends of the connections, closed with the rig.
    private var peers: [OpenDescriptor] = []

    init() throws {
      loop = try EventLoop()
      server = try SocketServer(
        listener: try UnixSocket.listen(path: dir.file("s.sock")), loop: loop,
        policy: AccessPolicy(uids: [getuid()], gids: []),
        version: "9.9.9", log: Logger(level: .debug, sink: log))
    }
    deinit { server.shutdown() }

    /// A connected client socket (blocking) and the server's side of it, after one batch.
    /// The socket is the rig's: it closes with the rig.
    func connect() throws -> (Int32, SocketClient) {
      let before = Set(server.clients.keys)
      let peer = OpenDescriptor(try UnixSocket.connect(path: dir.file("s.sock")))
      peers.append(peer)
      runBatch {}
      let added = try #require(server.clients.first { !before.contains($0.key) })
      return (peer.fd, added.value)
    }

    /// Runs the loop until `work` has run at the end of one batch (after its events),
    /// then lets the batch end: the server's end-of-batch flush follows `work`.
    func runBatch(_ work: () -> Void) {
      var done = false
      loop.defer {}  // the first wait returns at once
      try? loop.run {
        guard !done else { return }
        done = true
        work()
        loop.stop()
      }
    }

    var logText: String { log.lines.map(\.1).joined(separator: "\n") }
  }

  /// Reads what has arrived within `timeout` seconds.
  static func drain(_ fd: Int32, timeout: Double = 1) -> String {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while poll(&p, 1, Int32(timeout * 1000)) > 0 {
      let n = read(fd, &buffer, buffer.count)
      if n <= 0 { break }
      out += buffer[0..<n]
      if n < buffer.count { break }
    }
    return String(decoding: out, as: UTF8.self)
  }

  @Test func severalLinesQueuedInOneBatchGoOutInOneWrite() throws {
    let rig = try Rig()
    let (fd, client) = try rig.connect()
    #expect(client.writes == 1)  // the hello
    rig.runBatch {
      rig.server.broadcast(DaemonMessage.entry(keypad: "k", event: .started, length: 1))
      rig.server.broadcast(DaemonMessage.entry(keypad: "k", event: .changed, length: 2))
      rig.server.send(DaemonMessage.error("third"), to: client)
      #expect(client.writes == 1, "nothing is written before the batch ends")
    }
    #expect(client.writes == 2)
    let text = Self.drain(fd)
    #expect(text.split(separator: "\n").count == 4, "\(text)")
    #expect(text.hasPrefix("{\"type\":\"hello\",\"protocol\":1,\"version\":\"9.9.9\"}\n"))
    #expect(text.hasSuffix("{\"type\":\"error\",\"reason\":\"third\"}\n"))
    // A batch that queues nothing writes nothing.
    rig.runBatch {}
    #expect(client.writes == 2)
  }

  @Test func aBatchThatQueuesMuchIsWrittenAsItGrowsNotHeldToItsEnd() throws {
    let rig = try Rig()
    let (fd, client) = try rig.connect()
    let line = DaemonMessage.error(String(repeating: "x", count: 1000))
    rig.runBatch {
      for _ in 0..<40 { rig.server.send(line, to: client) }  // about 40 KiB
      #expect(client.writes >= 2, "written at the flush threshold")
      #expect(client.queued < SocketServer.flushThreshold + line.utf8.count)
    }
    let text = Self.drain(fd)
    #expect(text.split(separator: "\n").count == 41)
  }

  @Test func aClientThatStopsReadingIsStillDropped() throws {
    let rig = try Rig()
    let (fd, _) = try rig.connect()
    let (readerFD, reader) = try rig.connect()
    let line = DaemonMessage.error(String(repeating: "y", count: 4000))
    // Far more than the kernel's buffer and the 256 KiB queue, in batches.
    for _ in 0..<40 {
      rig.runBatch { for _ in 0..<10 { rig.server.broadcast(line) } }
      _ = Self.drain(readerFD, timeout: 0.01)
    }
    #expect(rig.server.count == 1, "the stalled client is gone")
    #expect(rig.server.clients.values.first === reader)
    #expect(rig.logText.contains("stopped reading"))
    #expect(rig.server.totalQueued <= SocketServer.maxQueuedBytes)
  }

  @Test func aCodeLineStillQueuedWhenItsAttemptIsDecidedIsDroppedAndItsBufferZeroed() throws {
    let rig = try Rig()
    let (stalledFD, stalled) = try rig.connect()
    let (readerFD, reader) = try rig.connect()
    // Fill the stalled client's kernel buffer so its lines stay queued in the process.
    let filler = DaemonMessage.error(String(repeating: "z", count: 2000))
    while stalled.queued == 0 {
      rig.runBatch { rig.server.send(filler, to: stalled) }
    }
    var code = Array("{\"type\":\"code\",\"id\":\"a-1\",\"code\":\"4711\"}\n".utf8)
    let writes = reader.writes
    rig.runBatch {
      rig.server.broadcast(DaemonMessage.entry(keypad: "k", event: .changed, length: 4))
      #expect(rig.server.broadcastSecret(&code, id: "a-1") == 2)
      #expect(code.allSatisfy { $0 == 0 }, "the caller's copy is zeroed at once")
      #expect(reader.writes == writes + 1, "the code line goes at once, with the entry line")
      #expect(stalled.holdsSecret(of: "a-1"))
      rig.server.dropUnreadSecrets(of: "a-1")
    }
    #expect(reader.writes == writes + 1)
    #expect(rig.server.clients.values.contains { $0 === reader })
    #expect(!rig.server.clients.values.contains { $0 === stalled })
    #expect(rig.logText.contains("had not read a code"))
    #expect(Self.drain(readerFD).contains("\"code\":\"4711\""))
  }

  @Test func aCodeLineWrittenToAClientLeavesNoCopyInTheServersBuffer() throws {
    let rig = try Rig()
    let (readerFD, reader) = try rig.connect()
    var code = Array("{\"type\":\"code\",\"id\":\"a-1\",\"code\":\"4711\"}\n".utf8)
    rig.runBatch {
      rig.server.broadcast(DaemonMessage.entry(keypad: "k", event: .changed, length: 4))
      #expect(rig.server.broadcastSecret(&code, id: "a-1") == 1)
    }
    #expect(reader.queued == 0)
    let received = Self.drain(readerFD)
    #expect(received.contains("\"code\":\"4711\""))
    // Each batch's lines went to the front of the buffer, and were zeroed as they went:
    // the hello line in the first, the entry and code lines in this one. Past the
    // longer of the two the storage holds whatever the allocator left there.
    let lines = received.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 4, "hello, entry, code, and nothing after the last line feed")
    let firstBatch = lines[0].utf8.count + 1
    let thisBatch = lines[1].utf8.count + lines[2].utf8.count + 2
    let storage = reader.outputStorage()
    #expect(storage.count >= SocketServer.maxQueuedBytes)
    let written = storage.prefix(max(firstBatch, thisBatch))
    #expect(written.allSatisfy { $0 == 0 }, "a written line is left in the buffer")
  }

  @Test func linesSplitAcrossReadsAndOverTheLimitAreHandledAsBefore() throws {
    let rig = try Rig()
    var requests: [ClientRequest] = []
    rig.server.onRequest = { _, request in requests.append(request) }
    let (fd, _) = try rig.connect()
    _ = Self.drain(fd)
    func send(_ text: String) {
      _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
    send("{\"type\":\"sta")
    rig.runBatch {}
    #expect(requests.isEmpty)
    send("tus\"}\n{\"type\":\"status\"}\n{\"type\"")
    rig.runBatch {}
    #expect(requests == [.status, .status])
    send(":\"status\"}\n")
    rig.runBatch {}
    #expect(requests == [.status, .status, .status])
    // Exactly the limit is a line; one byte more closes the connection.
    send(
      String(repeating: " ", count: ProtocolVersion.maxLineBytes - 17) + "{\"type\":\"status\"}\n")
    for _ in 0..<3 { rig.runBatch {} }
    #expect(requests.count == 4)
    send(String(repeating: " ", count: ProtocolVersion.maxLineBytes + 1))
    for _ in 0..<3 { rig.runBatch {} }
    #expect(rig.server.count == 0)
    #expect(Self.drain(fd).contains("line longer than 4096 bytes"))
  }
}
