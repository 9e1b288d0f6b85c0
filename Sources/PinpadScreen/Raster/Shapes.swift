/// Filled shapes drawn with integer or plain floating-point maths, so the same call
/// gives the same pixels on every machine.
extension Canvas {
  /// A rectangle with quarter-circle corners of `radius`.
  public mutating func fillRoundedRect(_ rect: Rect, radius: Int, _ color: Color) {
    let r = max(0, min(radius, rect.width / 2, rect.height / 2))
    if r == 0 {
      fill(rect, color)
      return
    }
    fill(Rect(x: rect.x, y: rect.y + r, width: rect.width, height: rect.height - 2 * r), color)
    fill(Rect(x: rect.x + r, y: rect.y, width: rect.width - 2 * r, height: r), color)
    fill(Rect(x: rect.x + r, y: rect.maxY - r, width: rect.width - 2 * r, height: r), color)
    let rr = r * r
    // Pixel centres at (d + 0.5): inside when (2d + 1 - 2r)^2 + ... <= (2r)^2.
    let corners = [
      (rect.x, rect.y), (rect.maxX - r, rect.y), (rect.x, rect.maxY - r),
      (rect.maxX - r, rect.maxY - r),
    ]
    for (index, (cx, cy)) in corners.enumerated() {
      let right = index % 2 == 1
      let bottom = index >= 2
      fill(Rect(x: cx, y: cy, width: r, height: r), color) { dx, dy in
        let px = right ? 2 * dx + 1 : 2 * dx + 1 - 2 * r
        let py = bottom ? 2 * dy + 1 : 2 * dy + 1 - 2 * r
        return px * px + py * py <= 4 * rr
      }
    }
  }

  /// A rounded outline `thickness` wide; the inside is filled with `inside`.
  public mutating func strokeRoundedRect(
    _ rect: Rect, radius: Int, thickness: Int, _ color: Color, inside: Color
  ) {
    fillRoundedRect(rect, radius: radius, color)
    fillRoundedRect(rect.insetBy(thickness), radius: max(0, radius - thickness), inside)
  }

  /// A disc of `radius` centred on pixel-grid point (`cx2`/2, `cy2`/2), given in half pixels.
  public mutating func fillDisc(centerX2 cx2: Int, centerY2 cy2: Int, radius: Int, _ color: Color) {
    let box = Rect(
      x: cx2 / 2 - radius - 1, y: cy2 / 2 - radius - 1, width: 2 * radius + 3,
      height: 2 * radius + 3)
    let r2 = 4 * radius * radius
    fill(box, color) { dx, dy in
      let px = 2 * (box.x + dx) + 1 - cx2
      let py = 2 * (box.y + dy) + 1 - cy2
      return px * px + py * py <= r2
    }
  }

  /// A ring between `inner` and `outer` radius around (`cx2`/2, `cy2`/2).
  public mutating func fillRing(
    centerX2 cx2: Int, centerY2 cy2: Int, outer: Int, inner: Int, _ color: Color
  ) {
    let box = Rect(
      x: cx2 / 2 - outer - 1, y: cy2 / 2 - outer - 1, width: 2 * outer + 3, height: 2 * outer + 3)
    let o2 = 4 * outer * outer
    let i2 = 4 * inner * inner
    fill(box, color) { dx, dy in
      let px = 2 * (box.x + dx) + 1 - cx2
      let py = 2 * (box.y + dy) + 1 - cy2
      let d = px * px + py * py
      return d <= o2 && d > i2
    }
  }

  /// A line from (x0, y0) to (x1, y1) with round ends, `thickness` wide.
  public mutating func fillLine(x0: Int, y0: Int, x1: Int, y1: Int, thickness: Int, _ color: Color)
  {
    let half = Double(thickness) / 2
    let pad = thickness / 2 + 2
    let box = Rect(
      x: min(x0, x1) - pad, y: min(y0, y1) - pad, width: abs(x1 - x0) + 2 * pad,
      height: abs(y1 - y0) + 2 * pad)
    let ax = Double(x0)
    let ay = Double(y0)
    let vx = Double(x1 - x0)
    let vy = Double(y1 - y0)
    let len2 = max(vx * vx + vy * vy, 1e-9)
    fill(box, color) { dx, dy in
      let px = Double(box.x + dx) + 0.5 - ax
      let py = Double(box.y + dy) + 0.5 - ay
      let t = max(0, min(1, (px * vx + py * vy) / len2))
      let ex = px - t * vx
      let ey = py - t * vy
      return ex * ex + ey * ey <= half * half
    }
  }
}
