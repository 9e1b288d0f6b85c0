import Foundation
import PinpadCore
import Testing

@testable import PinpadScreen

/// Real Debian console fonts (console-setup-linux). The Makefile's test target installs
/// them; without them these tests say so and stop.
private let fontDir = "/usr/share/consolefonts/"

private func fontBytes(_ name: String) -> [UInt8]? {
  guard let data = FileManager.default.contents(atPath: fontDir + name) else {
    print("SKIPPED: \(fontDir + name) is missing; apt-get install -y console-setup-linux kbd")
    return nil
  }
  return [UInt8](data)
}

/// The rows of `scalar`'s glyph as `#`/`.` strings, for readable assertions.
private func art(_ font: BitmapFont, _ scalar: Unicode.Scalar) -> [String] {
  let bits = font.bits(ofGlyph: font.glyphIndex(for: scalar)!)
  return (0..<font.height).map { row in
    String(
      (0..<font.width).map { x in
        bits[bits.startIndex + row * font.bytesPerRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0
          ? "#" : "."
      })
  }
}

@Suite struct FontTests {
  @Test func readsAGzippedPSF1FontWithItsUnicodeTable() throws {
    guard let bytes = fontBytes("Lat15-Terminus16.psf.gz") else { return }
    let font = try FontLoader.load(bytes, name: "Lat15-Terminus16")
    #expect(font.width == 8 && font.height == 16)
    #expect(font.glyphCount == 256 || font.glyphCount == 512)
    for scalar in "0123456789ABCXYZabcxyz :.".unicodeScalars { #expect(font.hasGlyph(for: scalar)) }
    #expect(font.hasGlyph(for: "\u{00E9}"))  // é lives in Latin-1/15
    #expect(font.glyphIndex(for: "A") != font.glyphIndex(for: "B"))
    #expect(art(font, " ").allSatisfy { !$0.contains("#") })
    #expect(art(font, "1").contains { $0.contains("#") })
  }

  @Test func readsAGzippedPSF2FontWithItsUnicodeTable() throws {
    guard let bytes = fontBytes("Lat15-Terminus32x16.psf.gz") else { return }
    let font = try FontLoader.load(bytes, name: "Lat15-Terminus32x16")
    #expect(font.width == 16 && font.height == 32)
    #expect(font.bytesPerRow == 2)
    for scalar in "0123456789 Enter PIN".unicodeScalars { #expect(font.hasGlyph(for: scalar)) }
    #expect(art(font, "|").contains { $0.contains("#") })
  }

  @Test func readsPlainPSF2BytesTheSameAsGzip() throws {
    guard let gz = fontBytes("Lat15-Terminus20x10.psf.gz") else { return }
    let plain = try Zlib.inflate(gz)
    #expect(plain.prefix(4) == [0x72, 0xB5, 0x4A, 0x86])
    let a = try FontLoader.load(gz)
    let b = try FontLoader.load(plain)
    #expect(a.width == 10 && a.height == 20)
    #expect(art(a, "8") == art(b, "8"))
  }

  @Test func readsPlainPSF1Bytes() throws {
    guard let gz = fontBytes("Lat15-VGA16.psf.gz") else { return }
    let plain = try Zlib.inflate(gz)
    #expect(plain.prefix(2) == [0x36, 0x04])
    let font = try FontLoader.load(plain)
    #expect(font.width == 8 && font.height == 16)
    #expect(font.hasGlyph(for: "7"))
  }

  @Test func missingGlyphsFallBackToStandIns() throws {
    let font = BitmapFont.builtin
    #expect(font.glyphIndex(for: "\u{2013}") == font.glyphIndex(for: "-"))
    #expect(font.glyphIndex(for: "\u{4E2D}") == font.glyphIndex(for: "?"))
  }

  @Test func rejectsGarbageAndTruncatedFonts() throws {
    #expect(throws: FontError.self) { try FontLoader.load([1, 2, 3, 4, 5]) }
    #expect(throws: FontError.self) { try FontLoader.load([0x36, 0x04, 0x00, 0x10, 0, 0]) }
    var psf2: [UInt8] = [0x72, 0xB5, 0x4A, 0x86] + [UInt8](repeating: 0, count: 28)
    psf2[8] = 32
    #expect(throws: FontError.self) { try FontLoader.load(psf2) }
    #expect(throws: FontError.self) { try FontLoader.load([0x1F, 0x8B, 8, 0, 0]) }
  }

  @Test func builtinFontCoversEveryScreenText() {
    let font = BitmapFont.builtin
    let texts = [
      "Enter PIN", ScreenText.checking, "Access granted", "Welcome",
      "Denied \u{2014} 2 attempts left",
      "Locked: 27 s", "Too many attempts", "The service is not answering", "Please try again later",
      "The check timed out", "No response", "Unavailable", "Too short", "Not allowed", "OK",
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    ]
    for text in texts {
      for scalar in text.unicodeScalars {
        #expect(font.hasGlyph(for: scalar), "built-in font lacks \(scalar) of \(text)")
      }
    }
  }

  @Test func textsComeFromThePhase() {
    #expect(
      ScreenText.summary(.denied(message: nil, attemptsLeft: 2))
        == "Denied \u{2014} 2 attempts left")
    #expect(
      ScreenText.summary(.denied(message: nil, attemptsLeft: 1)) == "Denied \u{2014} 1 attempt left"
    )
    #expect(ScreenText.title(.locked(secondsLeft: 27)) == "Locked: 27 s")
    #expect(ScreenText.summary(.granted(message: "Hi Ann")) == "Access granted \u{2014} Hi Ann")
  }
}
