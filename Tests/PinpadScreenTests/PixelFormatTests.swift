import PinpadCore
import Testing

@testable import PinpadScreen

/// A fake framebuffer: `lineLength` bytes a row, `rows` rows, filled with a poison byte
/// so untouched memory is visible.
private struct FakeMemory {
  var bytes: [UInt8]
  let lineLength: Int
  init(lineLength: Int, rows: Int) {
    self.lineLength = lineLength
    bytes = [UInt8](repeating: 0xA5, count: lineLength * rows)
  }

  mutating func write(
    _ canvas: Canvas, _ format: PixelFormat, rects: [Rect], x: Int = 0, y: Int = 0
  ) {
    let lineLength = lineLength
    bytes.withUnsafeMutableBytes { raw in
      format.write(
        canvas, rects: rects, to: raw.baseAddress!, lineLength: lineLength, xOffset: x, yOffset: y,
        capacity: raw.count)
    }
  }

  func pixel(x: Int, y: Int, bytesPerPixel: Int) -> UInt32 {
    var v: UInt32 = 0
    for i in 0..<bytesPerPixel {
      v |= UInt32(bytes[y * lineLength + x * bytesPerPixel + i]) << (8 * UInt32(i))
    }
    return v
  }
}

@Suite struct PixelFormatTests {
  static let formats: [(String, PixelFormat)] = [
    ("RGB565", .rgb565), ("BGR888", .bgr888), ("RGB888", .rgb888), ("XRGB8888", .xrgb8888),
    ("XBGR8888", .xbgr8888),
  ]

  @Test func encodesKnownColours() {
    #expect(PixelFormat.rgb565.encode(0xFF_0000) == 0xF800)
    #expect(PixelFormat.rgb565.encode(0x00_FF00) == 0x07E0)
    #expect(PixelFormat.rgb565.encode(0x00_00FF) == 0x001F)
    #expect(PixelFormat.bgr888.encode(0x12_3456) == 0x56_3412)
    #expect(PixelFormat.xrgb8888.encode(0x12_3456) == 0x12_3456)
    let tenBit = PixelFormat(
      bitsPerPixel: 32, red: .init(offset: 20, length: 10), green: .init(offset: 10, length: 10),
      blue: .init(offset: 0, length: 10))
    #expect(tenBit.isSupported)
    #expect(tenBit.encode(0xFF_0000) == 0x3FC << 20)
    #expect(
      !PixelFormat(
        bitsPerPixel: 8, red: .init(offset: 5, length: 3), green: .init(offset: 2, length: 3),
        blue: .init(offset: 0, length: 2)
      ).isSupported)
  }

  @Test(arguments: formats.map(\.0))
  func sameFrameThroughEachFormatIntoPaddedMemory(_ name: String) {
    let format = Self.formats.first { $0.0 == name }!.1
    let model = Fixtures.states.first { $0.0 == "keypad-entering" }!.1
    let canvas = ScreenRenderer.frame(model, width: 320, height: 240)
    let bpp = format.bytesPerPixel
    // A padded stride, not a multiple of the pixel size for 24 bpp.
    let lineLength = 320 * bpp + 64 + 4
    let xOffset = 3
    let yOffset = 5
    var memory = FakeMemory(lineLength: lineLength, rows: 240 + yOffset + 2)
    memory.write(canvas, format, rects: [canvas.bounds], x: xOffset, y: yOffset)
    for y in 0..<240 {
      for x in 0..<320 {
        let expected = format.encode(canvas[x, y])
        let got = memory.pixel(x: x + xOffset, y: y + yOffset, bytesPerPixel: bpp)
        if got != expected {
          Issue.record("\(name): pixel \(x),\(y) is \(got), expected \(expected)")
          return
        }
      }
    }
    // Padding, the rows above and the columns left of the picture are left alone.
    for y in 0..<memory.bytes.count / lineLength {
      for byte in 0..<lineLength {
        let x = byte / bpp - xOffset
        let inside = y >= yOffset && y < yOffset + 240 && byte >= xOffset * bpp && x < 320
        if !inside && memory.bytes[y * lineLength + byte] != 0xA5 {
          Issue.record("\(name): byte \(byte) of row \(y) outside the picture was written")
          return
        }
      }
    }
  }

  @Test func dirtyRectsCopyOnlyWhatChanged() {
    var renderer = ScreenRenderer()
    var canvas = Canvas(width: 800, height: 480)
    var m = ScreenModel()
    m.phase = .entering
    renderer.draw(m, on: &canvas)
    var memory = FakeMemory(lineLength: 800 * 2, rows: 480)
    memory.write(canvas, .rgb565, rects: canvas.takeDirty())
    m.filled = 1
    m.cursor = 1
    renderer.draw(m, on: &canvas)
    let dirty = canvas.takeDirty()
    memory.bytes = [UInt8](repeating: 0xA5, count: memory.bytes.count)
    memory.write(canvas, .rgb565, rects: dirty)
    var changed = 0
    for (i, b) in memory.bytes.enumerated() where b != 0xA5 {
      changed += 1
      let pixel = (i % memory.lineLength) / 2
      let row = i / memory.lineLength
      #expect(dirty.contains { $0.contains(x: pixel, y: row) })
    }
    #expect(changed > 0 && changed < memory.bytes.count / 20)
  }

  @Test func neverWritesPastTheEndOfTheMemory() {
    let canvas = Canvas(width: 64, height: 64, color: Color(xrgb: 0xFFFFFF))
    var memory = FakeMemory(lineLength: 64 * 4, rows: 32)
    memory.write(canvas, .xrgb8888, rects: [canvas.bounds])
    #expect(memory.bytes.count == 64 * 4 * 32)
    #expect(memory.pixel(x: 63, y: 31, bytesPerPixel: 4) == 0xFF_FFFF)
  }
}
