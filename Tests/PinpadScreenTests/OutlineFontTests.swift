import Foundation
import PinpadCore
import PinpadFreeType
import Testing

@testable import PinpadScreen

/// DejaVu Sans Bold through FreeType, nil (with a line saying so) when fonts-dejavu-core
/// is not installed.
private func dejaVu() -> ScreenFont? {
  let path = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
  guard let data = FileManager.default.contents(atPath: path) else {
    print("SKIPPED: \(path) is not installed (fonts-dejavu-core)")
    return nil
  }
  guard let font = try? FreeTypeFont(bytes: [UInt8](data), name: path) else {
    Issue.record("FreeType does not open \(path)")
    return nil
  }
  return .outline(OutlineFont(font))
}

/// A font of square glyphs: every scalar but "x" is a full-ink square of the em's size
/// with a one-pixel grey rim, advancing by the em; it counts its rasterizations.
private final class SquareSource: OutlineGlyphSource, @unchecked Sendable {
  let name = "squares"
  let metrics = OutlineMetrics(unitsPerEm: 1000, ascender: 800, descender: -200)
  private(set) var rendered = 0
  func advance(of scalar: Unicode.Scalar) -> Int? { scalar == "x" ? nil : 1000 }
  func kerning(_ left: Unicode.Scalar, _ right: Unicode.Scalar) -> Int { 0 }
  func glyph(of scalar: Unicode.Scalar, emSize64: Int) -> CoverageGlyph? {
    guard scalar != "x" else { return nil }
    rendered += 1
    let side = emSize64 / 64
    var coverage = [UInt8](repeating: 255, count: side * side)
    for i in 0..<side * side where i < side || i % side == 0 { coverage[i] = 128 }
    return CoverageGlyph(width: side, height: side, left: 0, top: side, coverage: coverage)
  }
}

@Suite struct OutlineFontTests {
  @Test func coverageIsBlendedWithWhatIsAlreadyThere() {
    var canvas = Canvas(width: 3, height: 1, color: Color(xrgb: 0x0000FF))
    let glyph = CoverageGlyph(width: 3, height: 1, left: 0, top: 0, coverage: [0, 128, 255])
    canvas.blend(glyph, x: 0, y: 0, color: Color(xrgb: 0xFF0000))
    #expect(canvas.pixels == [0x0000FF, 0x80007F, 0xFF0000])
  }

  @Test func blendingIsClippedToTheCanvasAndTheClip() {
    var canvas = Canvas(width: 2, height: 2)
    let glyph = CoverageGlyph(
      width: 3, height: 3, left: 0, top: 0, coverage: [UInt8](repeating: 255, count: 9))
    canvas.blend(glyph, x: -1, y: 1, color: Color(xrgb: 0xFFFFFF))
    #expect(canvas.pixels == [0, 0, 0xFFFFFF, 0xFFFFFF])
    var clipped = Canvas(width: 3, height: 3)
    clipped.blend(
      glyph, x: 0, y: 0, color: Color(xrgb: 0xFFFFFF), clip: Rect(x: 1, y: 1, width: 5, height: 1))
    #expect(clipped.pixels == [0, 0, 0, 0, 0xFFFFFF, 0xFFFFFF, 0, 0, 0])
  }

  @Test func aGlyphDrawnAgainIsNotRasterizedAgainAndTheCacheIsBounded() {
    let source = SquareSource()
    var setter = TextSetter(font: .outline(OutlineFont(source)))
    var canvas = Canvas(width: 200, height: 50)
    setter.draw("11", x: 0, y: 0, size: 20, color: Color(xrgb: 0xFFFFFF), on: &canvas)
    setter.draw("1", x: 0, y: 0, size: 20, color: Color(xrgb: 0xFFFFFF), on: &canvas)
    #expect(source.rendered == 1)
    // A small cache: 8 glyphs or 10 000 bytes of coverage at most, whatever is drawn.
    var small = TextSetter(
      font: .outline(OutlineFont(source)), cache: GlyphCache(limitBytes: 10_000, limitEntries: 8))
    for size in 6..<60 {
      small.draw("12", x: 0, y: 0, size: size, color: Color(xrgb: 1), on: &canvas)
      #expect(small.cache.count <= 8 && small.cache.bytes <= 10_000)
    }
    #expect(source.rendered == 1 + 2 * 54)
    #expect(small.cache.count > 0)
  }

  @Test func aLineTooWideIsCutWithAnEllipsisToFit() {
    // Every square advances by its size: 10 pixels at size 10, the ellipsis too.
    var setter = TextSetter(font: .outline(OutlineFont(SquareSource())))
    #expect(setter.truncated("abcdefghij", width: 55, size: 10) == "abcd\u{2026}")
    #expect(setter.truncated("abcdefghij", width: 100, size: 10) == "abcdefghij")
    #expect(setter.truncated("abcdefghij", width: 5, size: 10) == "\u{2026}")
  }

  @Test func aMissingScalarIsDrawnAsAQuestionMarksGlyph() {
    var setter = TextSetter(font: .outline(OutlineFont(SquareSource())))
    // "x" is missing: it takes the place of "?", so "axb" is as wide as "a?b".
    #expect(setter.width(of: "axb", size: 10) == setter.width(of: "a?b", size: 10))
  }

  @Test func outlineTextIsAntiAliasedAndInsideItsLine() throws {
    guard let font = dejaVu() else { return }
    var setter = TextSetter(font: font)
    var canvas = Canvas(width: 400, height: 100)
    let background = canvas.pixels[0]
    let ink: UInt32 = 0xFFFFFF
    let width = setter.width(of: "Enter PIN 0123", size: 40)
    setter.draw("Enter PIN 0123", x: 20, y: 30, size: 40, color: Color(xrgb: ink), on: &canvas)
    var full = 0
    var partial = 0
    for y in 0..<canvas.height {
      for x in 0..<canvas.width where canvas[x, y] != background {
        #expect(x >= 20 && x < 20 + width && y >= 30 && y < 70, "ink at \(x),\(y)")
        if canvas[x, y] == ink { full += 1 } else { partial += 1 }
      }
    }
    #expect(full > 500)
    #expect(partial > 100)
  }

  @Test func widthGrowsWithSize() throws {
    guard let font = dejaVu() else { return }
    var setter = TextSetter(font: font)
    let widths = [12, 24, 48, 96].map { setter.width(of: "Enter PIN", size: $0) }
    #expect(widths == widths.sorted() && Set(widths).count == 4)
    // About proportional: twice the size, twice the width, within a few pixels.
    #expect(abs(widths[3] - 2 * widths[2]) <= 4)
    // A size fitted to a width fits it.
    let fitted = setter.fit("Enter PIN", width: widths[2] - 1, preferred: 48)
    #expect(fitted < 48 && setter.width(of: "Enter PIN", size: fitted) <= widths[2] - 1)
  }

  @Test func theEnteringScreenWithDejaVuMatchesItsGolden() throws {
    guard let font = dejaVu() else { return }
    let model = Fixtures.states.first { $0.0 == "entering-revealed" }!.1
    let canvas = ScreenRenderer.frame(model, width: 800, height: 480, font: font)
    try Goldens.check(canvas, named: "dejavu-entering-revealed-800x480")
    let keypad = Fixtures.states.first { $0.0 == "keypad-entering" }!.1
    let pad = ScreenRenderer.frame(keypad, width: 800, height: 480, font: font)
    try Goldens.check(pad, named: "dejavu-keypad-entering-800x480")
  }

  @Test func theScreenScalesWithTheModeAsOnePicture() throws {
    guard let font = dejaVu() else { return }
    let model = Fixtures.states.first { $0.0 == "keypad-entering" }!.1
    // 1920x1080 is 2.25 times 800x480 in the layout's unit: the text scales with it, the
    // boxes about so (the wider screen leaves them a little more room).
    let small = ScreenLayout(width: 800, height: 480, model: model, font: font)
    let large = ScreenLayout(width: 1920, height: 1080, model: model, font: font)
    #expect(abs(large.textSize * 4 - small.textSize * 9) <= 9)
    let boxRatio = Double(large.boxRects[0].width) / Double(small.boxRects[0].width)
    #expect(boxRatio >= 2 && boxRatio <= 2.75)
    var renderer = ScreenRenderer(font: font)
    var canvas = Canvas(width: 1920, height: 1080)
    renderer.draw(model, on: &canvas)
    // Ink in every quarter of the screen: the picture fills it, not a corner of it.
    let background = canvas.pixels[0]
    for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
      var inked = false
      for y in stride(from: qy * 540, to: qy * 540 + 540, by: 2) where !inked {
        for x in stride(from: qx * 960, to: qx * 960 + 960, by: 2) where canvas[x, y] != background
        {
          inked = true
          break
        }
      }
      #expect(inked, "quarter \(qx),\(qy) is empty")
    }
  }

  @Test func freeTypeRefusesWhatIsNotAScalableFont() {
    #expect(FreeTypeFont.isOutlineFont([0x00, 0x01, 0x00, 0x00, 9]))
    #expect(FreeTypeFont.isOutlineFont(Array("OTTO....".utf8)))
    #expect(!FreeTypeFont.isOutlineFont([0x72, 0xB5, 0x4A, 0x86]))
    for bytes in [
      Array("OTTO and then nothing".utf8),
      [0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 7, count: 300), [UInt8](repeating: 0, count: 8),
    ] {
      do {
        _ = try FreeTypeFont(bytes: bytes, name: "/etc/bad.ttf")
        Issue.record("a font from \(bytes.count) bytes of nonsense")
      } catch {
        #expect(error.message.hasPrefix("/etc/bad.ttf: "))
      }
    }
  }
}
