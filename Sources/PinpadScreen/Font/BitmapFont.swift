/// A fixed-size 1-bit font: every glyph `width`×`height`, rows of `bytesPerRow` bytes,
/// most significant bit leftmost (the console's PSF layout), and a map from Unicode
/// scalars to glyphs.
public struct BitmapFont: Sendable {
  public let name: String
  public let width: Int
  public let height: Int
  public let bytesPerRow: Int
  public let glyphCount: Int
  private let bitmaps: [UInt8]
  private let map: [UInt32: Int]

  /// `bitmaps` holds `glyphCount` glyphs of `height * bytesPerRow` bytes each.
  /// `map` nil means glyph n is Unicode scalar n (a font without a unicode table).
  public init(
    name: String, width: Int, height: Int, glyphCount: Int, bitmaps: [UInt8],
    map: [UInt32: Int]?
  ) {
    self.name = name
    self.width = width
    self.height = height
    self.bytesPerRow = (width + 7) / 8
    self.glyphCount = glyphCount
    self.bitmaps = bitmaps
    precondition(bitmaps.count >= glyphCount * height * bytesPerRow, "short glyph data")
    if let map {
      self.map = map
    } else {
      var identity: [UInt32: Int] = [:]
      for i in 0..<glyphCount { identity[UInt32(i)] = i }
      self.map = identity
    }
  }

  /// The glyph for `scalar`, or a stand-in (`-` for dashes, `.` for an ellipsis, then `?`).
  public func glyphIndex(for scalar: Unicode.Scalar) -> Int? {
    if let g = map[scalar.value] { return g }
    switch scalar.value {
    case 0x2013, 0x2014, 0x2212: return map[0x2D] ?? map[0x3F]
    case 0x2026: return map[0x2E] ?? map[0x3F]
    case 0xA0: return map[0x20]
    default: return map[0x3F]
    }
  }

  public func hasGlyph(for scalar: Unicode.Scalar) -> Bool { map[scalar.value] != nil }

  /// The rows of glyph `index`.
  public func bits(ofGlyph index: Int) -> ArraySlice<UInt8> {
    let size = height * bytesPerRow
    return bitmaps[index * size..<(index + 1) * size]
  }

  /// The pixel width of `text` at `scale`.
  public func width(of text: String, scale: Int) -> Int {
    text.unicodeScalars.count * width * scale
  }
}

extension Canvas {
  /// Draws `text` with its top-left corner at `x, y`; returns the width drawn.
  @discardableResult
  public mutating func draw(
    _ text: String, font: BitmapFont, x: Int, y: Int, scale: Int, color: Color
  ) -> Int {
    var cx = x
    for scalar in text.unicodeScalars {
      if let g = font.glyphIndex(for: scalar) {
        blitGlyph(
          font.bits(ofGlyph: g), width: font.width, height: font.height,
          bytesPerRow: font.bytesPerRow, x: cx, y: y, scale: scale, color: color)
      }
      cx += font.width * scale
    }
    return cx - x
  }
}
