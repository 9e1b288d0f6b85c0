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
        for py in r.y..<r.maxY {
          let row = s + py * pw
          switch rotation {
          case .none:
            (d + py * sw + r.x).update(from: row + r.x, count: r.width)
          case .upsideDown:
            let out = d + (ph - 1 - py) * sw + (pw - 1)
            for px in r.x..<r.maxX { out[-px] = row[px] }
          case .clockwise90:
            // Picture (px, py) shows at screen (ph - 1 - py, px): a row becomes a column.
            let column = d + (ph - 1 - py)
            for px in r.x..<r.maxX { column[px * sw] = row[px] }
          case .clockwise270:
            // Picture (px, py) shows at screen (py, pw - 1 - px).
            let column = d + py
            for px in r.x..<r.maxX { column[(pw - 1 - px) * sw] = row[px] }
          }
        }
      }
    }
    markDirty(target)
    return target
  }
}
