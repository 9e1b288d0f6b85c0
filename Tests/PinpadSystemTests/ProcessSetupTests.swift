import CPinpadShim
import Glibc
import PinpadSystem
import Testing

@Suite struct ProcessSetupTests {
  /// A 256 KiB buffer (a client's output queue) freed and allocated again is a mapping
  /// of its own both times, so freeing it gives the memory back; without the setting,
  /// glibc serves the second one from the heap. glibc gives a mapping whole pages, less
  /// its 16-byte header; a heap chunk is only rounded to 16 bytes.
  @Test func largeBuffersStayMappingsAfterAFree() throws {
    #expect(ProcessSetup.returnLargeBuffersWhenFreed())
    let size = 256 * 1024
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
