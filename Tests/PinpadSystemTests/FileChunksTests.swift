import Glibc
import PinpadSystem
import Testing

/// `FileSystem.readChunks`, which the replay reads its recording with: real files, a
/// real FIFO, the size limit.
@Suite struct FileChunksTests {
  let dir: String

  init() {
    var template = Array("/tmp/pinpadd-chunks-XXXXXX".utf8CString)
    dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
  }

  func cleanUp() {
    for name in ["f", "empty", "fifo", "big"] { unlink(dir + "/" + name) }
    rmdir(dir)
  }

  func write(_ name: String, _ bytes: [UInt8]) -> String {
    let path = dir + "/" + name
    var file = OwnedDescriptor(taking: open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o600))
    let fd = file.fd.rawValue
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    file.close()
    return path
  }

  @Test func theChunksTogetherAreTheFileAndNoneIsLargerThanAsked() throws {
    defer { cleanUp() }
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
    defer { cleanUp() }
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
}
