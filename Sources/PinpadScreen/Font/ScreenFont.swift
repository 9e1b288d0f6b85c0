/// The font the screens are drawn in: a bitmap font at integer scales, or an outline font
/// (TrueType, OpenType) at any pixel height, anti-aliased. A text size is the scale for
/// a bitmap font and the line's height in pixels for an outline font.
public enum ScreenFont: Sendable {
  case bitmap(BitmapFont)
  case outline(OutlineFont)

  /// The built-in bitmap font (`BitmapFont.builtin`).
  public static let builtin = ScreenFont.bitmap(.builtin)

  public var name: String {
    switch self {
    case .bitmap(let font): return font.name
    case .outline(let font): return font.name
    }
  }

  /// The bitmap font, nil for an outline one.
  public var bitmapFont: BitmapFont? {
    if case .bitmap(let font) = self { return font }
    return nil
  }

  /// The height in pixels of a line of text at `size`.
  public func lineHeight(_ size: Int) -> Int {
    switch self {
    case .bitmap(let font): return font.height * size
    case .outline: return size
    }
  }

  /// The size whose line is closest to `height` pixels high (a bitmap font's nearest scale).
  public func size(forHeight height: Int) -> Int {
    switch self {
    case .bitmap(let font): return max(1, (height + font.height / 2) / font.height)
    case .outline: return max(OutlineFont.smallestSize, height)
    }
  }

  /// The largest size whose line is at most `height` pixels high (1 at least).
  public func size(fittingHeight height: Int) -> Int {
    switch self {
    case .bitmap(let font): return max(1, height / font.height)
    case .outline: return max(OutlineFont.smallestSize, height)
    }
  }
}

extension OutlineFont {
  /// No line is drawn smaller than this many pixels.
  public static let smallestSize = 6
}

/// Sets text in a `ScreenFont`, keeping an outline font's rendered glyphs.
struct TextSetter: Sendable {
  let font: ScreenFont
  private(set) var cache: GlyphCache

  init(font: ScreenFont, cache: GlyphCache = GlyphCache()) {
    self.font = font
    self.cache = cache
  }

  /// The width in pixels of `text` at `size`.
  mutating func width(of text: String, size: Int) -> Int {
    switch font {
    case .bitmap(let bitmap): return bitmap.width(of: text, scale: size)
    case .outline(let outline): return outline.width(of: text, size: size, cache: &cache)
    }
  }

  /// The largest size up to `preferred` at which `text` fits in `width`.
  mutating func fit(_ text: String, width: Int, preferred: Int) -> Int {
    switch font {
    case .bitmap(let bitmap):
      let chars = max(1, text.unicodeScalars.count)
      return max(1, min(preferred, width / (chars * bitmap.width)))
    case .outline:
      let full = self.width(of: text, size: preferred)
      if full <= width { return preferred }
      var size = max(OutlineFont.smallestSize, preferred * width / max(1, full))
      while size > OutlineFont.smallestSize && self.width(of: text, size: size) > width {
        size -= 1
      }
      return size
    }
  }

  /// `text`, cut with an ellipsis to fit `width` at `size`.
  mutating func truncated(_ text: String, width: Int, size: Int) -> String {
    if case .bitmap(let bitmap) = font {
      let fits = max(1, width / (bitmap.width * size))
      let scalars = Array(text.unicodeScalars)
      if scalars.count <= fits { return text }
      return Self.cut(scalars, keeping: max(0, fits - 1))
    }
    if self.width(of: text, size: size) <= width { return text }
    // The most scalars that fit with the ellipsis: a binary search, as widths only grow.
    let scalars = Array(text.unicodeScalars)
    var fits = 0
    var tooMany = scalars.count
    while tooMany - fits > 1 {
      let keep = (fits + tooMany) / 2
      if self.width(of: Self.cut(scalars, keeping: keep), size: size) <= width {
        fits = keep
      } else {
        tooMany = keep
      }
    }
    return Self.cut(scalars, keeping: fits)
  }

  private static func cut(_ scalars: [Unicode.Scalar], keeping count: Int) -> String {
    var s = String.UnicodeScalarView()
    s.append(contentsOf: scalars.prefix(count))
    s.append("\u{2026}")
    return String(s)
  }

  /// Draws `text` with the top-left corner of its line at `x, y`; an outline font's ink
  /// stays inside `clip` (a glyph reaching past its line must not outlast its element).
  mutating func draw(
    _ text: String, x: Int, y: Int, size: Int, color: Color, clip: Rect? = nil,
    on canvas: inout Canvas
  ) {
    switch font {
    case .bitmap(let bitmap):
      canvas.draw(text, font: bitmap, x: x, y: y, scale: size, color: color)
    case .outline(let outline):
      let (placed, _) = outline.layout(text, size: size, cache: &cache)
      let em64 = outline.emSize64(forLine: size)
      let baseline = y + outline.baseline(forLine: size)
      for (scalar, pen) in placed {
        guard
          let glyph = cache.glyph(of: scalar, emSize64: em64, in: outline.source),
          glyph.width > 0
        else { continue }
        canvas.blend(
          glyph, x: x + (pen + 32) / 64 + glyph.left, y: baseline - glyph.top, color: color,
          clip: clip)
      }
    }
  }

  /// Draws `text` centred in `rect` at `size`.
  mutating func drawCentered(
    _ text: String, in rect: Rect, size: Int, color: Color, on canvas: inout Canvas
  ) {
    let w = width(of: text, size: size)
    let h = font.lineHeight(size)
    draw(
      text, x: rect.x + (rect.width - w) / 2, y: rect.y + (rect.height - h) / 2, size: size,
      color: color, clip: rect, on: &canvas)
  }
}
