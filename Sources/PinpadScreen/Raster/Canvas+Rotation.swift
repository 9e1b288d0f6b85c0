import PinpadCore

extension Canvas {
  /// The screen rectangle where the picture's `rect` shows when a picture of
  /// `pictureWidth` x `pictureHeight` is turned by `rotation`.
  public static func screenRect(
    of rect: Rect, rotation: ScreenRotation, pictureWidth pw: Int, pictureHeight ph: Int
  ) -> Rect {
    switch rotation {
    case .none: return rect
    case .clockwise90:
      return Rect(x: ph - rect.y - rect.height, y: rect.x, width: rect.height, height: rect.width)
    case .upsideDown:
      return Rect(
        x: pw - rect.x - rect.width, y: ph - rect.y - rect.height, width: rect.width,
        height: rect.height)
    case .clockwise270:
      return Rect(x: rect.y, y: pw - rect.x - rect.width, width: rect.height, height: rect.width)
    }
  }

  /// Copies the part `rect` of `picture`, turned by `rotation`, into this canvas (the
  /// screen, whose sides are the picture's swapped at 90 and 270), and marks the screen
  /// rectangle it covers dirty. Returns that rectangle.
  @discardableResult
  public mutating func copy(_ picture: Canvas, rect: Rect, rotation: ScreenRotation) -> Rect {
    let r = rect.intersection(picture.bounds)
    let size = rotation.pictureSize(screenWidth: width, screenHeight: height)
    precondition(size.width == picture.width && size.height == picture.height, "sizes differ")
    if r.isEmpty { return .zero }
    let target = Canvas.screenRect(
      of: r, rotation: rotation, pictureWidth: picture.width, pictureHeight: picture.height)
    let sw = width
    let pw = picture.width
    let ph = picture.height
    pixels.withUnsafeMutableBufferPointer { dst in
      picture.pixels.withUnsafeBufferPointer { src in
        let s = src.baseAddress!
        let d = dst.baseAddress!
        if rotation == .clockwise90 || rotation == .clockwise270 {
          Canvas.turn(
            from: s, pictureWidth: pw, pictureHeight: ph, rect: r, to: d, screenWidth: sw,
            clockwise: rotation == .clockwise90)
          return
        }
        for py in r.y..<r.maxY {
          let row = s + py * pw
          switch rotation {
          case .none:
            (d + py * sw + r.x).update(from: row + r.x, count: r.width)
          case .upsideDown:
            let out = d + (ph - 1 - py) * sw + (pw - 1)
            for px in r.x..<r.maxX { out[-px] = row[px] }
          case .clockwise90, .clockwise270:
            break  // above
          }
        }
      }
    }
    markDirty(target)
    return target
  }

  /// Copies the part `r` of a picture turned by 90 (`clockwise`) or 270 degrees: a
  /// picture column becomes a screen row. Picture (px, py) shows at screen
  /// (ph - 1 - py, px) turned 90, at (py, pw - 1 - px) turned 270. In tiles, so that the
  /// picture rows read and the screen rows written stay in the cache, and in blocks of
  /// 4 x 4 pixels turned in registers.
  private static func turn(
    from s: UnsafePointer<UInt32>, pictureWidth pw: Int, pictureHeight ph: Int, rect r: Rect,
    to d: UnsafeMutablePointer<UInt32>, screenWidth sw: Int, clockwise: Bool
  ) {
    func put(_ px: Int, _ py: Int) {
      let at = clockwise ? px * sw + (ph - 1 - py) : (pw - 1 - px) * sw + py
      d[at] = s[py * pw + px]
    }
    func load(_ px: Int, _ py: Int) -> SIMD4<UInt32> {
      UnsafeRawPointer(s + py * pw + px).loadUnaligned(as: SIMD4<UInt32>.self)
    }
    func store(_ v: SIMD4<UInt32>, _ x: Int, _ y: Int) {
      UnsafeMutableRawPointer(d + y * sw + x).storeBytes(of: v, as: SIMD4<UInt32>.self)
    }
    let tile = 32
    for ty in stride(from: r.y, to: r.maxY, by: tile) {
      let yEnd = min(ty + tile, r.maxY)
      for tx in stride(from: r.x, to: r.maxX, by: tile) {
        let xEnd = min(tx + tile, r.maxX)
        var py = ty
        while py + 4 <= yEnd {
          var px = tx
          while px + 4 <= xEnd {
            let r0 = load(px, py)
            let r1 = load(px, py + 1)
            let r2 = load(px, py + 2)
            let r3 = load(px, py + 3)
            if clockwise {
              let x = ph - 4 - py
              store(SIMD4(r3[0], r2[0], r1[0], r0[0]), x, px)
              store(SIMD4(r3[1], r2[1], r1[1], r0[1]), x, px + 1)
              store(SIMD4(r3[2], r2[2], r1[2], r0[2]), x, px + 2)
              store(SIMD4(r3[3], r2[3], r1[3], r0[3]), x, px + 3)
            } else {
              let y = pw - 1 - px
              store(SIMD4(r0[0], r1[0], r2[0], r3[0]), py, y)
              store(SIMD4(r0[1], r1[1], r2[1], r3[1]), py, y - 1)
              store(SIMD4(r0[2], r1[2], r2[2], r3[2]), py, y - 2)
              store(SIMD4(r0[3], r1[3], r2[3], r3[3]), py, y - 3)
            }
            px += 4
          }
          for x in px..<xEnd { for y in py..<py + 4 { put(x, y) } }
          py += 4
        }
        for y in py..<yEnd { for x in tx..<xEnd { put(x, y) } }
      }
    }
  }
}
