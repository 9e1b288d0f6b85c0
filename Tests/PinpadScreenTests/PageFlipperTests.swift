import Testing

@testable import PinpadScreen

/// The DRM display's two buffers (`PageFlipper`): never written while on screen, each
/// given only what it lacks.
@Suite struct PageFlipperTests {
  let whole = Rect(x: 0, y: 0, width: 800, height: 480)
  let digit = Rect(x: 100, y: 100, width: 40, height: 60)
  let other = Rect(x: 300, y: 100, width: 40, height: 60)

  /// A flipper whose two buffers both hold the whole picture.
  func upToDate() -> PageFlipper {
    var flipper = PageFlipper(width: 800, height: 480)
    for _ in 0..<2 {
      _ = flipper.next()
      flipper.flipped()
    }
    return flipper
  }

  @Test func theFirstFrameGoesWholeIntoTheBufferNotOnScreen() {
    var flipper = PageFlipper(width: 800, height: 480)
    #expect(flipper.front == 0)
    let next = flipper.next()
    #expect(next?.buffer == 1)
    #expect(next?.rects == [whole])
    #expect(flipper.flipPending)
  }

  @Test func nothingIsWrittenWhileAFlipIsOnItsWay() {
    var flipper = PageFlipper(width: 800, height: 480)
    _ = flipper.next()
    flipper.changed([digit])
    #expect(flipper.next() == nil)
    flipper.flipped()
    #expect(flipper.front == 1)
    // Buffer 0 was never written: it lacks everything (the digit inside it).
    let next = flipper.next()
    #expect(next?.buffer == 0)
    #expect(next?.rects == [whole])
  }

  @Test func eachBufferGetsOnlyWhatChangedSinceItWasWritten() {
    var flipper = upToDate()
    #expect(flipper.next() == nil)  // both up to date
    flipper.changed([digit])
    #expect(flipper.next()?.rects == [digit])  // buffer 1
    flipper.changed([other])
    flipper.flipped()
    // Buffer 0 lacks both digits; buffer 1 only the second.
    #expect(flipper.next()?.rects == [digit, other])
    flipper.flipped()
    #expect(flipper.next()?.rects == [other])
  }

  @Test func theBufferReturnedIsNeverTheOneOnScreen() {
    var flipper = PageFlipper(width: 800, height: 480)
    for step in 0..<20 {
      flipper.changed([Rect(x: step * 10, y: 0, width: 10, height: 10)])
      if let next = flipper.next() { #expect(next.buffer != flipper.front) }
      if step % 3 != 0 { flipper.flipped() }
    }
  }

  @Test func aRefusedFlipLeavesItsBufferLackingWhatItWasGiven() {
    var flipper = upToDate()
    flipper.changed([digit])
    let next = flipper.next()!
    flipper.flipFailed(next.rects)
    #expect(!flipper.flipPending)
    #expect(flipper.next()?.rects == [digit])
  }

  @Test func manySmallChangesMergeIntoOneRectangle() {
    var flipper = upToDate()
    flipper.changed(
      (0..<(PageFlipper.maximumRects + 1)).map { Rect(x: $0 * 20, y: 10, width: 10, height: 10) })
    let rects = flipper.next()!.rects
    #expect(rects == [Rect(x: 0, y: 10, width: 20 * PageFlipper.maximumRects + 10, height: 10)])
  }

  @Test func afterAnotherProgramHadTheScreenBothBuffersAreRedrawnWhole() {
    var flipper = upToDate()
    flipper.invalidate()
    #expect(flipper.next()?.rects == [whole])
  }
}
