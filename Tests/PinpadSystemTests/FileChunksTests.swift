import Glibc
import PinpadSystem
import PinpadTestSupport
import Testing

/// `FileSystem.readChunks`, which the replay reads its recording with: real files, a
/// real FIFO, the size limit.
@Suite struct FileChunksTests {
  let folder = TempDir(prefix: "pinpadd-chunks")
  var dir: String { folder.path }

  func write(_ name: String, _ bytes: [UInt8]) -> String { folder.write(name, bytes: bytes) }

  @Test func theChunksTogetherAreTheFileAndNoneIsLargerThanAsked() throws {
    let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let path = write("f", bytes)
    var read: [UInt8] = []
    var largest = 0
    try FileSystem.readChunks(path, chunkSize: 7) { chunk in
      read += chunk
      largest = max(largest, chunk.count)
      return true
    }
    #expect(read == bytes)
    #expect(largest == 7)
    var calls = 0
    try FileSystem.readChunks(path, chunkSize: 100) { _ in
      calls += 1
      return false  // stop after the first
    }
    #expect(calls == 1)
    try FileSystem.readChunks(write("empty", []), chunkSize: 7) { _ in
      Issue.record("an empty file has no chunks")
      return true
    }
  }

  @Test func aFIFOAMissingFileAndAFileOverTheLimitAreErrorsNamingThePath() {
    let fifo = dir + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect {
      try FileSystem.readChunks(fifo) { _ in true }
    } throws: { error in
      "\(error)" == "cannot read \(fifo): not a regular file but a FIFO"
    }
    #expect {
      try FileSystem.readChunks(dir + "/missing") { _ in true }
    } throws: { error in
      "\(error)".hasPrefix("cannot read \(dir)/missing: ")
    }
    let big = write("big", [UInt8](repeating: 0x41, count: 300))
    var seen = 0
    #expect {
      try FileSystem.readChunks(big, chunkSize: 64, limit: 200) { chunk in
        seen += chunk.count
        return true
      }
    } throws: { error in
      (error as? SystemError)?.errno == Errno(EFBIG)
    }
    #expect(seen <= 200)
  }

  // Issue 24.9: `--config /dev/null` is "no configuration"; what cannot be read as a file
  // at once still is refused, without blocking.

  @Test func aCharacterDeviceAtItsEndAtOnceReadsAsAnEmptyFile() throws {
    var chunks = 0
    try FileSystem.readChunks("/dev/null") { _ in
      chunks += 1
      return true
    }
    #expect(chunks == 0)
    #expect(try FileSystem.read("/dev/null") == [])
  }

  @Test func aCharacterDeviceWithDataIsRefusedAsADevice() throws {
    #expect {
      try FileSystem.readChunks("/dev/zero") { _ in true }
    } throws: { error in
      "\(error)" == "cannot read /dev/zero: not a regular file but a character device"
    }
  }

  @Test func aDirectoryAndASocketAreRefused() throws {
    #expect {
      try FileSystem.readChunks(dir) { _ in true }
    } throws: { error in
      "\(error)" == "cannot read \(dir): not a regular file but a directory"
    }
    let socketPath = dir + "/socket"
    defer { unlink(socketPath) }
    let owner = OpenDescriptor(
      OwnedDescriptor(taking: socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)))
    defer { owner.close() }
    let fd = owner.fd
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, byte) in socketPath.utf8.enumerated() { raw[i] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    // open(2) of a socket fails (ENXIO): an error naming the path, at once.
    #expect {
      try FileSystem.readChunks(socketPath) { _ in true }
    } throws: { error in
      "\(error)".hasPrefix("cannot read \(socketPath): ")
    }
  }
}
