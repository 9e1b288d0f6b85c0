import PinpadCore
import Testing

@testable import PinpadControlCore

private func text(_ line: UnsafeMutableBufferPointer<UInt8>?) -> String? {
  line.map { String(decoding: $0, as: UTF8.self) }
}

/// The one buffer the daemon's lines are read into (docs/protocol.md, "Socket: code"):
/// lines in order, zeroed once used, bounded.
@Suite struct LockedLineBufferTests {
  @Test func linesComeOutInOrderAndAPartialLineWaits() {
    let buffer = LockedLineBuffer(capacity: 64)
    buffer.append(contentsOf: Array("one\ntwo\nthr".utf8))
    #expect(text(buffer.completeLine()) == "one")
    #expect(text(buffer.completeLine()) == "two")
    #expect(buffer.completeLine() == nil)
    buffer.append(contentsOf: Array("ee\n".utf8))
    #expect(text(buffer.completeLine()) == "three")
    #expect(buffer.completeLine() == nil)
    #expect(buffer.filled == 0)
  }

  @Test func aUsedLineIsZeroedBeforeTheNextIsHandedOut() {
    let buffer = LockedLineBuffer(capacity: 64)
    buffer.append(contentsOf: Array("1234\nab".utf8))
    let first = buffer.completeLine()
    #expect(text(first) == "1234")
    #expect(buffer.completeLine() == nil)
    // Only the partial line is left; every other byte is zero.
    #expect(buffer.pendingBytesForTests == Array("ab".utf8))
    #expect(buffer.isZeroPastFilledForTests)
  }

  @Test func aLineLongerThanTheBufferFillsItWithoutALine() {
    let buffer = LockedLineBuffer(capacity: 8)
    #expect(buffer.append(contentsOf: Array("0123456789".utf8)) == 8)
    #expect(buffer.isFull)
    #expect(buffer.completeLine() == nil)
    var called = false
    #expect(
      buffer.append { _ in
        called = true
        return 1
      } == 0)
    #expect(!called, "a full buffer reads nothing more")
  }

  @Test func aBufferFullOfCompleteLinesMakesRoomAsTheyAreTaken() {
    let buffer = LockedLineBuffer(capacity: 8)
    buffer.append(contentsOf: Array("ab\ncd\nef".utf8))
    #expect(buffer.isFull)
    #expect(text(buffer.completeLine()) == "ab")
    #expect(!buffer.isFull)
    #expect(text(buffer.completeLine()) == "cd")
    #expect(buffer.append(contentsOf: Array("g\n".utf8)) == 2)
    #expect(text(buffer.completeLine()) == "efg")
  }

  @Test func wipeZeroesEverything() {
    let buffer = LockedLineBuffer(capacity: 16)
    buffer.append(contentsOf: Array("9876\n54".utf8))
    buffer.wipe()
    #expect(buffer.filled == 0)
    #expect(buffer.isZeroPastFilledForTests)
    #expect(buffer.completeLine() == nil)
  }

  @Test func removeLastZeroesTheLastByteOfTheLineBeingRead() {
    let buffer = LockedLineBuffer(capacity: 16)
    buffer.append(contentsOf: Array("12\n345".utf8))
    #expect(text(buffer.completeLine()) == "12")
    buffer.removeLast()
    #expect(buffer.pendingBytesForTests == Array("34".utf8))
    #expect(buffer.isZeroPastFilledForTests)
    buffer.removeLast()
    buffer.removeLast()
    buffer.removeLast()
    #expect(buffer.filled == 0)
    #expect(buffer.isZeroPastFilledForTests)
  }

  @Test func appendHandsTheFreeSpaceToTheReader() {
    let buffer = LockedLineBuffer(capacity: 16)
    buffer.append(contentsOf: Array("abc".utf8))
    var offered = 0
    let n = buffer.append { space in
      offered = space.count
      for (i, byte) in "de\n".utf8.enumerated() { space[i] = byte }
      return 3
    }
    #expect(n == 3 && offered == 13)
    #expect(text(buffer.completeLine()) == "abcde")
  }
}
