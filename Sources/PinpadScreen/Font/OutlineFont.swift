/// One glyph of an outline font rendered at one size: 8-bit coverage (0 no ink, 255 full
/// ink), `width` bytes a row, placed from the pen position on the baseline.
public struct CoverageGlyph: Sendable, Equatable {
  public var width: Int
  public var height: Int
  /// From the pen position to the first column.
  public var left: Int
  /// From the baseline up to the first row.
  public var top: Int
  public var coverage: [UInt8]

  public init(width: Int, height: Int, left: Int, top: Int, coverage: [UInt8]) {
    precondition(width >= 0 && height >= 0 && coverage.count >= width * height, "short coverage")
    self.width = width
    self.height = height
    self.left = left
    self.top = top
    self.coverage = coverage
  }
}

/// A font's vertical design metrics, in design units (`descender` below the baseline is
/// negative, as in the font).
public struct OutlineMetrics: Sendable, Equatable {
  public var unitsPerEm: Int
  public var ascender: Int
  public var descender: Int

  public init(unitsPerEm: Int, ascender: Int, descender: Int) {
    self.unitsPerEm = max(1, unitsPerEm)
    self.ascender = ascender
    self.descender = descender
  }

  /// Ascender to descender: the line a size is measured by.
  public var lineUnits: Int { max(1, ascender - descender) }
}

/// What rasterizes an outline font (TrueType, OpenType); PinpadFreeType gives one. A
/// size is the height of a line (ascender to descender) in pixels.
public protocol OutlineGlyphSource: Sendable {
  var name: String { get }
  var metrics: OutlineMetrics { get }
  /// The horizontal advance of `scalar` in design units, nil when the font lacks it.
  func advance(of scalar: Unicode.Scalar) -> Int?
  /// Kerning between two scalars in design units (0 when none).
  func kerning(_ left: Unicode.Scalar, _ right: Unicode.Scalar) -> Int
  /// The glyph of `scalar` at an em of `emSize64` 1/64 pixels, nil when the font lacks it.
  func glyph(of scalar: Unicode.Scalar, emSize64: Int) -> CoverageGlyph?
}

/// An outline font for the screens: text at any pixel height, anti-aliased.
public struct OutlineFont: Sendable {
  public let source: any OutlineGlyphSource
  public init(_ source: any OutlineGlyphSource) { self.source = source }
  public var name: String { source.name }

  /// The em, in 1/64 pixels, of a line `size` pixels high.
  func emSize64(forLine size: Int) -> Int {
    max(64, size * 64 * source.metrics.unitsPerEm / source.metrics.lineUnits)
  }

  /// Pixels from the top of a line `size` high down to its baseline.
  func baseline(forLine size: Int) -> Int {
    (size * source.metrics.ascender + source.metrics.lineUnits / 2) / source.metrics.lineUnits
  }

  /// The scalar drawn for `scalar`: itself, else a stand-in (`-` for dashes, `.` for an
  /// ellipsis, a space for a no-break space, then `?`); nil when none is in the font.
  func drawn(_ scalar: Unicode.Scalar, cache: inout GlyphCache) -> Unicode.Scalar? {
    if cache.advance(of: scalar, in: source) != nil { return scalar }
    let stand: Unicode.Scalar
    switch scalar.value {
    case 0x2013, 0x2014, 0x2212: stand = "-"
    case 0x2026: stand = "."
    case 0xA0: stand = " "
    default: stand = "?"
    }
    if cache.advance(of: stand, in: source) != nil { return stand }
    return cache.advance(of: "?", in: source) != nil ? "?" : nil
  }

  /// The pen positions (1/64 pixel) of each drawn scalar of `text` at line `size`, and
  /// the total width in 1/64 pixels.
  func layout(_ text: String, size: Int, cache: inout GlyphCache) -> (
    [(Unicode.Scalar, Int)], Int
  ) {
    let em64 = emSize64(forLine: size)
    let upem = source.metrics.unitsPerEm
    var pen = 0
    var placed: [(Unicode.Scalar, Int)] = []
    var previous: Unicode.Scalar? = nil
    for scalar in text.unicodeScalars {
      guard let s = drawn(scalar, cache: &cache), let advance = cache.advance(of: s, in: source)
      else { continue }
      if let previous {
        pen += cache.kerning(previous, s, in: source) * em64 / upem
      }
      placed.append((s, pen))
      pen += advance * em64 / upem
      previous = s
    }
    return (placed, pen)
  }

  /// The width in pixels of `text` in a line `size` high.
  func width(of text: String, size: Int, cache: inout GlyphCache) -> Int {
    (layout(text, size: size, cache: &cache).1 + 63) / 64
  }
}

/// Rendered glyphs and advances, kept per (scalar, size) so that a digit drawn again
/// costs a blend, not a rasterization. Bounded: at `limitBytes` of coverage (or
/// `limitEntries` glyphs) it starts again empty.
struct GlyphCache: Sendable {
  struct Key: Hashable {
    var scalar: UInt32
    var emSize64: Int
  }
  private var glyphs: [Key: CoverageGlyph?] = [:]
  private var advances: [UInt32: Int?] = [:]
  private var kerns: [UInt64: Int] = [:]
  private(set) var bytes = 0
  let limitBytes: Int
  let limitEntries: Int

  init(limitBytes: Int = 4 << 20, limitEntries: Int = 1024) {
    self.limitBytes = limitBytes
    self.limitEntries = limitEntries
  }

  var count: Int { glyphs.count }

  mutating func glyph(
    of scalar: Unicode.Scalar, emSize64: Int, in source: any OutlineGlyphSource
  ) -> CoverageGlyph? {
    let key = Key(scalar: scalar.value, emSize64: emSize64)
    if let cached = glyphs[key] { return cached }
    let glyph = source.glyph(of: scalar, emSize64: emSize64)
    let size = glyph?.coverage.count ?? 0
    if glyphs.count >= limitEntries || bytes + size > limitBytes {
      glyphs.removeAll(keepingCapacity: true)
      bytes = 0
    }
    glyphs[key] = .some(glyph)
    bytes += size
    return glyph
  }

  mutating func advance(of scalar: Unicode.Scalar, in source: any OutlineGlyphSource) -> Int? {
    if let cached = advances[scalar.value] { return cached }
    if advances.count >= limitEntries { advances.removeAll(keepingCapacity: true) }
    let advance = source.advance(of: scalar)
    advances[scalar.value] = .some(advance)
    return advance
  }

  mutating func kerning(
    _ left: Unicode.Scalar, _ right: Unicode.Scalar, in source: any OutlineGlyphSource
  ) -> Int {
    let key = UInt64(left.value) << 32 | UInt64(right.value)
    if let cached = kerns[key] { return cached }
    if kerns.count >= limitEntries { kerns.removeAll(keepingCapacity: true) }
    let kern = source.kerning(left, right)
    kerns[key] = kern
    return kern
  }
}

extension Canvas {
  /// Blends 8-bit coverage onto the canvas: each pixel moves from what is there towards
  /// `color` by coverage/255 (clipped to the canvas and to `clip`).
  public mutating func blend(
    _ glyph: CoverageGlyph, x: Int, y: Int, color: Color, clip: Rect? = nil
  ) {
    let w = width
    let area = clip.map { $0.intersection(bounds) } ?? bounds
    let x0 = max(x, area.x)
    let x1 = min(x + glyph.width, area.maxX)
    let y0 = max(y, area.y)
    let y1 = min(y + glyph.height, area.maxY)
    guard x1 > x0, y1 > y0 else { return }
    let value = color.xrgb
    let r = value >> 16 & 0xFF
    let g = value >> 8 & 0xFF
    let b = value & 0xFF
    glyph.coverage.withUnsafeBufferPointer { cov in
      pixels.withUnsafeMutableBufferPointer { p in
        for row in y0..<y1 {
          let src = (row - y) * glyph.width - x
          let dst = row * w
          for col in x0..<x1 {
            let a = UInt32(cov[src + col])
            if a == 0 { continue }
            if a == 255 {
              p[dst + col] = value
              continue
            }
            let old = p[dst + col]
            let na = 255 - a
            let nr = (r * a + (old >> 16 & 0xFF) * na + 127) / 255
            let ng = (g * a + (old >> 8 & 0xFF) * na + 127) / 255
            let nb = (b * a + (old & 0xFF) * na + 127) / 255
            p[dst + col] = nr << 16 | ng << 8 | nb
          }
        }
      }
    }
  }
}
