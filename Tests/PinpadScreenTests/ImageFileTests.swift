import Testing

@testable import PinpadScreen

@Suite struct ImageFileTests {
  @Test func pngRoundTripsExactly() throws {
    var canvas = Canvas(width: 37, height: 11, color: Color(xrgb: 0x123456))
    canvas.fill(Rect(x: 3, y: 2, width: 10, height: 5), Color(xrgb: 0xFF0080))
    canvas.fillDisc(centerX2: 50, centerY2: 11, radius: 4, Color(xrgb: 0x00FF00))
    let png = try ImageFile.png(canvas)
    #expect(png.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    #expect(Array(png.suffix(8).prefix(4)) == Array("IEND".utf8))
    let back = try ImageFile.decodePNG(png)
    #expect(back.width == 37 && back.height == 11)
    #expect(back.pixels == canvas.pixels)
  }

  @Test func pngWithACorruptChunkIsRejected() throws {
    var png = try ImageFile.png(Canvas(width: 4, height: 4))
    png[20] ^= 0xFF
    #expect(throws: ImageError.self) { try ImageFile.decodePNG(png) }
  }

  @Test func ppmHasAHeaderAndRGBBytes() {
    var canvas = Canvas(width: 2, height: 1)
    canvas.fill(Rect(x: 1, y: 0, width: 1, height: 1), Color(xrgb: 0xA0B0C0))
    #expect(ImageFile.ppm(canvas) == Array("P6\n2 1\n255\n".utf8) + [0, 0, 0, 0xA0, 0xB0, 0xC0])
  }
}
