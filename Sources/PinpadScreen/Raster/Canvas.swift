/// An in-memory XRGB8888 picture with the list of rectangles changed since the list
/// was last taken. Renderers draw here; outputs copy the dirty rectangles out.
public struct Canvas: Sendable {
  public let width: Int
  public let height: Int
  /// Row-major, `width` pixels a row, 0x00RRGGBB.
  public internal(set) var pixels: [UInt32]
  /// Changed regions, clipped to the canvas, in drawing order.
  public private(set) var dirty: [Rect] = []

  public init(width: Int, height: Int, color: Color = Color(xrgb: 0)) {
    precondition(width > 0 && height > 0, "canvas needs a size")
    self.width = width
    self.height = height
    pixels = [UInt32](repeating: color.xrgb, count: width * height)
    dirty = [bounds]
  }

  /// A canvas holding `pixels` (0x00RRGGBB, row-major), all of it dirty.
  public init(width: Int, height: Int, pixels: [UInt32]) {
    precondition(
      width > 0 && height > 0 && pixels.count == width * height, "pixels must fill the canvas")
    self.width = width
    self.height = height
    self.pixels = pixels.map { $0 & 0x00FF_FFFF }
    dirty = [bounds]
  }

  public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

  public subscript(x: Int, y: Int) -> UInt32 { pixels[y * width + x] }

  /// Adds `rect` (clipped) to the dirty list.
  public mutating func markDirty(_ rect: Rect) {
    let r = rect.intersection(bounds)
    if r.isEmpty { return }
    if dirty.contains(where: { $0.intersection(r) == r }) { return }
    dirty.removeAll { r.intersection($0) == $0 }
    dirty.append(r)
  }

  /// Returns the dirty list and empties it.
  public mutating func takeDirty() -> [Rect] {
    defer { dirty = [] }
    return dirty
  }

  /// Fills `rect` (clipped). Does not mark it dirty: the renderer marks whole elements.
  public mutating func fill(_ rect: Rect, _ color: Color) {
    let r = rect.intersection(bounds)
    if r.isEmpty { return }
    let w = width
    let value = color.xrgb
    pixels.withUnsafeMutableBufferPointer { p in
      for row in r.y..<r.maxY {
        let start = row * w + r.x
        (p.baseAddress! + start).update(repeating: value, count: r.width)
      }
    }
  }

  /// Sets every pixel where `inside(dx, dy)` holds, for `dx, dy` relative to `rect`.
  public mutating func fill(_ rect: Rect, _ color: Color, where inside: (Int, Int) -> Bool) {
    let r = rect.intersection(bounds)
    if r.isEmpty { return }
    let w = width
    let value = color.xrgb
    pixels.withUnsafeMutableBufferPointer { p in
      for row in r.y..<r.maxY {
        for col in r.x..<r.maxX where inside(col - rect.x, row - rect.y) {
          p[row * w + col] = value
        }
      }
    }
  }

  /// Draws a 1-bit glyph: bit 7 of the first byte of each row is the leftmost pixel,
  /// rows `bytesPerRow` apart; every set bit becomes a `scale`×`scale` block at `x, y`.
  public mutating func blitGlyph(
    _ bits: ArraySlice<UInt8>, width gw: Int, height gh: Int, bytesPerRow: Int,
    x: Int, y: Int, scale: Int, color: Color
  ) {
    let value = color.xrgb
    let w = width
    let h = height
    let base = bits.startIndex
    pixels.withUnsafeMutableBufferPointer { p in
      for gy in 0..<gh {
        let rowBase = base + gy * bytesPerRow
        for gx in 0..<gw {
          let byte = bits[rowBase + gx >> 3]
          if byte & (0x80 >> UInt8(gx & 7)) == 0 { continue }
          let px = x + gx * scale
          let py = y + gy * scale
          let x0 = max(px, 0)
          let x1 = min(px + scale, w)
          if x1 <= x0 { continue }
          let y0 = max(py, 0)
          let y1 = min(py + scale, h)
          if y1 <= y0 { continue }
          for yy in y0..<y1 {
            (p.baseAddress! + yy * w + x0).update(repeating: value, count: x1 - x0)
          }
        }
      }
    }
  }
}
