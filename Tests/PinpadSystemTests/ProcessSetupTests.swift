import CPinpadShim
import Glibc
import PinpadSystem
import Testing

@Suite struct ProcessSetupTests {
  /// A large buffer freed and allocated again is a mapping of its own both times, so
  /// freeing it gives the memory back; without the setting, glibc raises its threshold
  /// at the first free and serves the second one from the heap. glibc gives a mapping
  /// whole pages, less its 16-byte header; a heap chunk is only rounded to 16 bytes.
  /// 3 MiB, not a client queue's 256 KiB: the other suites running in this process free
  /// 256 KiB queues, and glibc serves a request from a free heap chunk that fits before
  /// it thinks of a mapping.
  @Test func largeBuffersStayMappingsAfterAFree() throws {
    #expect(ProcessSetup.returnLargeBuffersWhenFreed())
    let size = 3 * 1024 * 1024 + 4096
    func isMapping(_ pointer: UnsafeMutableRawPointer) -> Bool {
      (pinpad_usable_size(pointer) + 16) % 4096 == 0
    }
    let first = try #require(malloc(size))
    #expect(isMapping(first))
    free(first)
    let second = try #require(malloc(size))
    #expect(isMapping(second))
    free(second)
  }
}
