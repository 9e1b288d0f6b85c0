import PinpadCore
import Testing

@testable import PinpadScreen

/// The dedicated conversion loops against the generic one (`encode` for each pixel),
/// byte for byte: every layout with a fast path and some without, odd widths, padded
/// rows, offsets and damage rectangles partly off the canvas.
@Suite struct PixelFastPathTests {
  static func format(_ bpp: Int, _ r: (Int, Int), _ g: (Int, Int), _ b: (Int, Int))
    -> PixelFormat
  {
    PixelFormat(
      bitsPerPixel: bpp, red: .init(offset: r.0, length: r.1),
      green: .init(offset: g.0, length: g.1), blue: .init(offset: b.0, length: b.1))
  }

  static let layouts: [(name: String, format: PixelFormat, kernel: PixelFormat.Kernel)] = [
    ("RGB565", .rgb565, .rgb565),
    ("BGR565", format(16, (0, 5), (5, 6), (11, 5)), .bgr565),
    ("RGB555", format(16, (10, 5), (5, 5), (0, 5)), .generic),
    ("RGB888", .rgb888, .bytes24(red: 2, green: 1, blue: 0)),
    ("BGR888", .bgr888, .bytes24(red: 0, green: 1, blue: 2)),
    ("GRB888", format(24, (8, 8), (16, 8), (0, 8)), .bytes24(red: 1, green: 2, blue: 0)),
    ("XRGB8888", .xrgb8888, .copy32),
    ("XBGR8888", .xbgr8888, .bytes32(red: 0, green: 8, blue: 16)),
    ("RGBX8888", format(32, (24, 8), (16, 8), (8, 8)), .bytes32(red: 24, green: 16, blue: 8)),
    ("BGRX8888", format(32, (8, 8), (16, 8), (24, 8)), .bytes32(red: 8, green: 16, blue: 24)),
    ("XRGB2101010", format(32, (20, 10), (10, 10), (0, 10)), .generic),
  ]

  /// Pixels from a fixed linear congruential sequence, so every bit pattern occurs.
  static func noise(width: Int, height: Int, seed: UInt32) -> Canvas {
    var state = seed
    let pixels = (0..<width * height).map { _ in
      state = state &* 1_664_525 &+ 1_013_904_223
      return state >> 8
    }
    return Canvas(width: width, height: height, pixels: pixels)
  }

  static func memory(
    _ canvas: Canvas, _ format: PixelFormat, rects: [Rect], lineLength: Int, rows: Int,
    x: Int, y: Int, kernel: PixelFormat.Kernel? = nil
  ) -> [UInt8] {
    var bytes = [UInt8](repeating: 0xA5, count: lineLength * rows)
    bytes.withUnsafeMutableBytes { raw in
      if let kernel {
        format.write(
          canvas, rects: rects, to: raw.baseAddress!, lineLength: lineLength, xOffset: x,
          yOffset: y, capacity: raw.count, kernel: kernel)
      } else {
        format.write(
          canvas, rects: rects, to: raw.baseAddress!, lineLength: lineLength, xOffset: x,
          yOffset: y, capacity: raw.count)
      }
    }
    return bytes
  }

  @Test(arguments: layouts.map(\.name))
  func eachLayoutTakesItsLoopAndWritesWhatTheGenericOneWrites(_ name: String) {
    let layout = Self.layouts.first { $0.name == name }!
    let format = layout.format
    #expect(format.isSupported)
    #expect(format.kernel == layout.kernel)
    let bpp = format.bytesPerPixel
    for width in [1, 2, 3, 37, 64] {
      let height = 9
      let canvas = Self.noise(width: width, height: height, seed: UInt32(width))
      let damage = [
        canvas.bounds,
        Rect(x: width / 2, y: 2, width: 5, height: 3),
        Rect(x: -3, y: -2, width: 4, height: 4),
        Rect(x: width - 1, y: height - 2, width: 10, height: 10),
      ]
      // Padding not a multiple of the pixel size; offsets into the visible area.
      let lineLength = (width + 3) * bpp + 7
      let rows = height + 4
      for rects in [[canvas.bounds], Array(damage.dropFirst())] {
        let fast = Self.memory(
          canvas, format, rects: rects, lineLength: lineLength, rows: rows, x: 2, y: 3)
        let generic = Self.memory(
          canvas, format, rects: rects, lineLength: lineLength, rows: rows, x: 2, y: 3,
          kernel: .generic)
        if fast != generic {
          let at = zip(fast, generic).enumerated().first { $0.element.0 != $0.element.1 }!.offset
          Issue.record("\(name) width \(width) \(rects): byte \(at) differs from the generic loop")
        }
      }
      // And the generic loop is `encode`, pixel by pixel.
      let whole = Self.memory(
        canvas, format, rects: [canvas.bounds], lineLength: lineLength, rows: rows, x: 2, y: 3)
      for y in 0..<height {
        for x in 0..<width {
          var got: UInt32 = 0
          for i in 0..<bpp {
            got |= UInt32(whole[(y + 3) * lineLength + (x + 2) * bpp + i]) << (8 * UInt32(i))
          }
          if got != format.encode(canvas[x, y]) {
            Issue.record("\(name) width \(width): pixel \(x),\(y) is \(got)")
            return
          }
        }
      }
    }
  }

  @Test func rgb565KeepsTheTopBitsOfEachChannel() {
    let canvas = Canvas(
      width: 4, height: 1, pixels: [0xFF_FFFF, 0x08_0400, 0x07_0307, 0x84_8284])
    let bytes = Self.memory(
      canvas, .rgb565, rects: [canvas.bounds], lineLength: 8, rows: 1, x: 0, y: 0)
    let pixels = (0..<4).map { UInt16(bytes[$0 * 2]) | UInt16(bytes[$0 * 2 + 1]) << 8 }
    #expect(pixels == [0xFFFF, 0x0820, 0x0000, 0x8410])
  }

  @Test func aRowThatWouldPassTheEndOfTheMemoryIsSkipped() {
    let canvas = Self.noise(width: 10, height: 4, seed: 7)
    let full = Self.memory(
      canvas, .rgb565, rects: [canvas.bounds], lineLength: 20, rows: 4, x: 0, y: 0)
    // Room for three rows and a half: the fourth row is not written at all.
    var small = [UInt8](repeating: 0xA5, count: 70)
    small.withUnsafeMutableBytes { raw in
      PixelFormat.rgb565.write(
        canvas, rects: [canvas.bounds], to: raw.baseAddress!, lineLength: 20, capacity: 70)
    }
    #expect(Array(small.prefix(60)) == Array(full.prefix(60)))
    #expect(small.suffix(10).allSatisfy { $0 == 0xA5 })
  }
}
