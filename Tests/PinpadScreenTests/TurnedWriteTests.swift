import PinpadCore
import Testing

@testable import PinpadScreen

/// `PixelFormat.write(_:turnedBy:...)`, which turns and converts in one pass, against
/// the picture turned onto a screen canvas (`Canvas.copy`) and that written, byte for
/// byte: every turn, several formats, odd rectangles (single pixels at the corners,
/// edges, rectangles across the tiles' borders and partly off the screen), padded and
/// misaligned rows, offsets, and a capacity that ends inside a row.
@Suite struct TurnedWriteTests {
  static let formats: [PixelFormat] = [.xrgb8888, .rgb565, .xbgr8888, .rgb888]
  /// Sides that are no multiple of the 4 x 4 blocks, wider and taller than a tile.
  static let (pw, ph) = (150, 137)

  static func screenSize(_ rotation: ScreenRotation) -> (width: Int, height: Int) {
    rotation.pictureSize(screenWidth: pw, screenHeight: ph)
  }

  static func rectLists(_ rotation: ScreenRotation) -> [[Rect]] {
    let (sw, sh) = screenSize(rotation)
    let tile = PixelFormat.turnTile
    return [
      [Rect(x: 0, y: 0, width: 1, height: 1)],
      [Rect(x: sw - 1, y: sh - 1, width: 1, height: 1)],
      [Rect(x: sw - 1, y: 0, width: 1, height: sh), Rect(x: 0, y: sh - 1, width: sw, height: 1)],
      [Rect(x: tile.width - 5, y: tile.height - 3, width: 9, height: tile.height + 7)],
      [Rect(x: 3, y: 2, width: 5, height: 3), Rect(x: 61, y: 40, width: 70, height: 33)],
      [Rect(x: -3, y: sh - 6, width: 21, height: 11)],
      [Rect(x: 0, y: 0, width: sw, height: sh)],
    ]
  }

  /// Both ways of writing `rects` of `picture` turned by `rotation`: (fused, reference).
  static func written(
    _ picture: Canvas, _ rotation: ScreenRotation, _ format: PixelFormat, _ rects: [Rect],
    capacity: ((Int, Int) -> Int)? = nil
  ) -> (fused: [UInt8], reference: [UInt8]) {
    let (sw, sh) = screenSize(rotation)
    var screen = Canvas(width: sw, height: sh)
    screen.copy(picture, rect: picture.bounds, rotation: rotation)
    // Rows padded to a length that leaves 32-bit pixels unaligned; an offset each way.
    let lineLength = (sw + 2) * format.bytesPerPixel + 6
    let size = lineLength * (sh + 1) + 16
    let limit = capacity?(lineLength, size) ?? size
    func write(_ body: (UnsafeMutableRawPointer) -> Void) -> [UInt8] {
      var memory = [UInt8](repeating: 0xA5, count: size)
      memory.withUnsafeMutableBytes { body($0.baseAddress!) }
      return memory
    }
    let fused = write {
      format.write(
        picture, turnedBy: rotation, rects: rects, to: $0, lineLength: lineLength, xOffset: 2,
        yOffset: 1, capacity: limit)
    }
    let reference = write {
      format.write(
        screen, rects: rects, to: $0, lineLength: lineLength, xOffset: 2, yOffset: 1,
        capacity: limit)
    }
    return (fused, reference)
  }

  /// Where two byte strings first differ (nil: equal), rather than both in full.
  func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
    a.count != b.count ? min(a.count, b.count) : a.indices.first { a[$0] != b[$0] }
  }

  @Test(arguments: ScreenRotation.allCases, formats)
  func turningWhileWritingGivesTheBytesOfTurningThenWriting(
    _ rotation: ScreenRotation, _ format: PixelFormat
  ) {
    let picture = PixelFastPathTests.noise(width: Self.pw, height: Self.ph, seed: 44)
    for rects in Self.rectLists(rotation) {
      let (fused, reference) = Self.written(picture, rotation, format, rects)
      #expect(firstDifference(fused, reference) == nil, "\(rects)")
      #expect(fused.contains { $0 != 0xA5 }, "\(rects): something written")
    }
  }

  @Test(arguments: ScreenRotation.allCases, [PixelFormat.xrgb8888, .rgb565])
  func nothingIsWrittenAtOrBeyondTheCapacity(_ rotation: ScreenRotation, _ format: PixelFormat) {
    let picture = PixelFastPathTests.noise(width: Self.pw, height: Self.ph, seed: 7)
    let (sw, sh) = Self.screenSize(rotation)
    let limit = { (lineLength: Int, _: Int) in lineLength * 40 + 9 }
    let (fused, reference) = Self.written(
      picture, rotation, format, [Rect(x: 0, y: 0, width: sw, height: sh)], capacity: limit)
    #expect(firstDifference(fused, reference) == nil)
    let lineLength = (sw + 2) * format.bytesPerPixel + 6
    #expect(fused[(lineLength * 40 + 9)...].allSatisfy { $0 == 0xA5 })
  }

  @Test func aPictureTurnedNinetyDegreesShowsItsTopLeftCornerAtTheScreensTopRight() {
    var picture = Canvas(width: 4, height: 2)
    picture.fill(Rect(x: 0, y: 0, width: 1, height: 1), Color(xrgb: 0xFF0000))
    var memory = [UInt32](repeating: 0, count: 2 * 4)
    memory.withUnsafeMutableBytes { raw in
      PixelFormat.xrgb8888.write(
        picture, turnedBy: .clockwise90, rects: [Rect(x: 0, y: 0, width: 2, height: 4)],
        to: raw.baseAddress!, lineLength: 8, capacity: raw.count)
    }
    #expect(memory == [0, 0xFF0000, 0, 0, 0, 0, 0, 0])
  }
}
