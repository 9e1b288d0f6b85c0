import PinpadCore

extension PixelFormat {
  /// The screen tiles `write(_:turnedBy:...)` works in. Turned 90 or 270 degrees, a
  /// tile reads a piece of 16 pixels (a cache line) of each of 128 picture rows, and
  /// those 128 lines stay in the cache while all 16 of their pixels are used.
  static let turnTile = (width: 128, height: 16)

  /// Like `write(_:rects:to:...)` for a screen showing `picture` turned clockwise by
  /// `rotation` (pinpadd.conf(5), [Display] Rotate=): `rects` are screen rectangles
  /// (the screen's sides are the picture's swapped at 90 and 270). Turns and converts in
  /// one pass, without a turned copy of the whole picture: each screen tile is gathered
  /// from the picture straight into place for XRGB8888 (the canvas's own format), else
  /// into a small scratch tile whose rows are then converted as an upright write
  /// converts rows. Gives the same bytes as turning the picture onto a
  /// screen canvas (`Canvas.copy(_:rect:rotation:)`) and writing that. Writes only, never
  /// reads the destination, and nothing at or beyond `capacity` bytes.
  public func write(
    _ picture: Canvas, turnedBy rotation: ScreenRotation, rects: [Rect],
    to base: UnsafeMutableRawPointer, lineLength: Int, xOffset: Int = 0, yOffset: Int = 0,
    capacity: Int
  ) {
    guard rotation != .none else {
      return write(
        picture, rects: rects, to: base, lineLength: lineLength, xOffset: xOffset,
        yOffset: yOffset, capacity: capacity)
    }
    let kernel = self.kernel
    let bpp = bytesPerPixel
    let size = rotation.pictureSize(screenWidth: picture.width, screenHeight: picture.height)
    let screen = Rect(x: 0, y: 0, width: size.width, height: size.height)
    let side = Self.turnTile
    var scratch = [UInt32](repeating: 0, count: side.width * side.height)
    picture.pixels.withUnsafeBufferPointer { pixels in
      scratch.withUnsafeMutableBytes { scratch in
        let turn = Turn(
          pixels: pixels.baseAddress!, width: picture.width, height: picture.height,
          rotation: rotation)
        for rect in rects {
          let r = rect.intersection(screen)
          if r.isEmpty { continue }
          for ty in stride(from: r.y, to: r.maxY, by: side.height) {
            for tx in stride(from: r.x, to: r.maxX, by: side.width) {
              let t = Rect(
                x: tx, y: ty, width: min(side.width, r.maxX - tx),
                height: min(side.height, r.maxY - ty))
              let first = (t.y + yOffset) * lineLength + (t.x + xOffset) * bpp
              let last = first + (t.height - 1) * lineLength + t.width * bpp
              if kernel == .copy32, first >= 0, last <= capacity {
                // The canvas's own format, the tile wholly inside: straight to its place.
                turn.gather(t, into: base + first, lineLength: lineLength)
                continue
              }
              turn.gather(t, into: scratch.baseAddress!, lineLength: t.width * 4)
              for row in 0..<t.height {
                let rowStart = first + row * lineLength
                guard rowStart >= 0, rowStart + t.width * bpp <= capacity else { continue }
                convert(
                  scratch.baseAddress!.assumingMemoryBound(to: UInt32.self) + row * t.width,
                  to: base + rowStart, count: t.width, kernel)
              }
            }
          }
        }
      }
    }
  }
}

/// A picture seen turned clockwise by 90, 180 or 270 degrees: where each screen pixel
/// comes from, and the gathering of a screen tile.
private struct Turn {
  let pixels: UnsafePointer<UInt32>
  /// The picture's sides.
  let width: Int
  let height: Int
  let rotation: ScreenRotation

  /// The index in the picture of the pixel shown at screen (`x`, `y`) (the inverse of
  /// `Canvas.screenRect`'s mapping, as `ScreenRotation.picturePoint`).
  @inline(__always)
  func index(_ x: Int, _ y: Int) -> Int {
    switch rotation {
    case .none: return y * width + x
    case .clockwise90: return (height - 1 - x) * width + y
    case .upsideDown: return (height - 1 - y) * width + (width - 1 - x)
    case .clockwise270: return x * width + (width - 1 - y)
    }
  }

  /// Writes the screen tile `t` as 32-bit canvas pixels at `out`, rows `lineLength`
  /// bytes apart.
  func gather(_ t: Rect, into out: UnsafeMutableRawPointer, lineLength: Int) {
    switch rotation {
    case .none, .upsideDown: rows(t, into: out, lineLength: lineLength)
    case .clockwise90: columns(t, into: out, lineLength: lineLength, reversed: false)
    case .clockwise270: columns(t, into: out, lineLength: lineLength, reversed: true)
    }
  }

  @inline(__always)
  private func load(_ p: UnsafePointer<UInt32>) -> SIMD4<UInt32> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt32>.self)
  }

  /// Turned 180 degrees (or not at all) a screen row is a picture row read backwards
  /// (forwards): in pieces of four pixels, each one load, its lanes reversed.
  @inline(__always)
  private func rows(_ t: Rect, into out: UnsafeMutableRawPointer, lineLength: Int) {
    let backwards = rotation == .upsideDown
    for y in t.y..<t.maxY {
      let from = pixels + index(t.x, y)
      let to = out + (y - t.y) * lineLength
      var i = 0
      if backwards {
        while i + 4 <= t.width {
          let v = load(from - i - 3)
          to.storeBytes(
            of: SIMD4(v[3], v[2], v[1], v[0]), toByteOffset: i * 4, as: SIMD4<UInt32>.self)
          i += 4
        }
      }
      while i < t.width {
        to.storeBytes(of: from[backwards ? -i : i], toByteOffset: i * 4, as: UInt32.self)
        i += 1
      }
    }
  }

  /// Turned 90 or 270 degrees a screen row is a picture column, and the four screen
  /// pixels (x, y ..< y + 4) are four neighbours in one picture row, in order turned 90,
  /// in reverse order turned 270: one load. In blocks of 4 x 4: four such screen columns
  /// loaded and turned in registers into four pieces of screen rows (turned 270, the
  /// last row first).
  @inline(__always)
  private func columns(
    _ t: Rect, into out: UnsafeMutableRawPointer, lineLength: Int, reversed: Bool
  ) {
    // From one screen column to the next, the picture row above (90) or below (270).
    let step = reversed ? width : -width
    // Where the piece of screen row `i` of a block goes, from the block's first row.
    let row0 = reversed ? 3 * lineLength : 0
    let rowStep = reversed ? -lineLength : lineLength
    // Their multiples, worked out once; the inner loop's offsets, inside the tile, use
    // wrapping arithmetic (as `convert` does): no overflow checks there.
    let (step2, step3, step4) = (2 * step, 3 * step, 4 * step)
    let (rowStep2, rowStep3) = (2 * rowStep, 3 * rowStep)
    var y = t.y
    while y + 4 <= t.maxY {
      // The first in memory of the four pixels (x, y ..< y + 4).
      var p = pixels + index(t.x, reversed ? y + 3 : y)
      let to = out + (y - t.y) * lineLength + row0
      var x = t.x
      while x + 4 <= t.maxX {
        let c0 = load(p)
        let c1 = load(p + step)
        let c2 = load(p + step2)
        let c3 = load(p + step3)
        let o = (x &- t.x) &* 4
        to.storeBytes(
          of: SIMD4(c0[0], c1[0], c2[0], c3[0]), toByteOffset: o, as: SIMD4<UInt32>.self)
        to.storeBytes(
          of: SIMD4(c0[1], c1[1], c2[1], c3[1]), toByteOffset: o &+ rowStep,
          as: SIMD4<UInt32>.self)
        to.storeBytes(
          of: SIMD4(c0[2], c1[2], c2[2], c3[2]), toByteOffset: o &+ rowStep2,
          as: SIMD4<UInt32>.self)
        to.storeBytes(
          of: SIMD4(c0[3], c1[3], c2[3], c3[3]), toByteOffset: o &+ rowStep3,
          as: SIMD4<UInt32>.self)
        p += step4
        x += 4
      }
      for x in x..<t.maxX { for j in 0..<4 { put(x, y + j, t, out, lineLength) } }
      y += 4
    }
    for y in y..<t.maxY { for x in t.x..<t.maxX { put(x, y, t, out, lineLength) } }
  }

  /// One screen pixel (`x`, `y`) of the tile `t`, the rest of a tile past its 4 x 4 blocks.
  @inline(__always)
  private func put(_ x: Int, _ y: Int, _ t: Rect, _ out: UnsafeMutableRawPointer, _ lineLength: Int)
  {
    out.storeBytes(
      of: pixels[index(x, y)], toByteOffset: (y - t.y) * lineLength + (x - t.x) * 4,
      as: UInt32.self)
  }
}
