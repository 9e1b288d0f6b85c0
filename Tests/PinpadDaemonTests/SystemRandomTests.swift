import PinpadSystem
import Testing

@testable import PinpadDaemon

/// The daemon's generator for attempt ids and scrambled layouts: getrandom(2) read 16
/// values at a time, shared by every copy.
@Suite struct SystemRandomTests {
  @Test func copiesShareOnePoolSoNoValueIsHandedOutTwice() {
    var first = SystemRandom()
    var copy = first
    var seen = Set<UInt64>()
    for round in 0..<2000 {
      let value = round % 2 == 0 ? first.next() : copy.next()
      #expect(seen.insert(value).inserted, "value \(round) was handed out before")
    }
    // 2000 values of 64 random bits: a repeat or a zero would mean a pool used twice or
    // never filled.
    #expect(!seen.contains(0))
  }

  @Test func fillRandomFillsUpTo256BytesAndRefusesMore() {
    var small = [UInt8](repeating: 0, count: 256)
    #expect(small.withUnsafeMutableBytes { FileSystem.fillRandom($0) })
    #expect(small.filter { $0 == 0 }.count < 16)  // about 1 in 256 bytes is 0
    var large = [UInt8](repeating: 0, count: 257)
    #expect(!large.withUnsafeMutableBytes { FileSystem.fillRandom($0) })
    #expect(large.allSatisfy { $0 == 0 })
  }
}
