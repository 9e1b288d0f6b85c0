import PinpadCore

/// Draws a `ScreenModel` into a `Canvas`, redrawing only the parts that changed since
/// the previous frame and adding them to the canvas's dirty list.
///
/// With a `rotation` the picture is laid out at the turned size (480x800 on an 800x480
/// screen at 90 degrees), drawn upright into a canvas of its own and the changed parts
/// copied, turned, onto the screen's canvas (pinpadd.conf(5), [Display] Rotate=). The
/// layout is the picture's: a touch is turned back before it is looked up.
///
/// A frame is a list of non-overlapping elements, each owning its rectangle. Two equal
/// models give equal element lists, and an element's look depends only on what it shows:
/// a masked box knows "filled" or "empty", never a digit.
public struct ScreenRenderer: Sendable {
  public let font: ScreenFont
  public let theme: Theme
  /// How far the picture is turned on the screen, clockwise.
  public let rotation: ScreenRotation
  public private(set) var layout: ScreenLayout?
  private var previous: [Element] = []
  private var needsFullRedraw = true
  /// The upright picture, when turned.
  private var picture: Canvas? = nil
  /// Sets the text, keeping an outline font's rendered glyphs from frame to frame.
  private var text: TextSetter

  public init(
    font: ScreenFont = .builtin, theme: Theme = .standard,
    rotation: ScreenRotation = .none
  ) {
    self.font = font
    self.theme = theme
    self.rotation = rotation
    text = TextSetter(font: font)
  }

  public init(font: BitmapFont, theme: Theme = .standard, rotation: ScreenRotation = .none) {
    self.init(font: .bitmap(font), theme: theme, rotation: rotation)
  }

  /// Makes the next `draw` repaint everything (after a VT switch, say).
  public mutating func invalidate() { needsFullRedraw = true }

  /// Draws `model` on `canvas` (the screen) and returns the number of elements redrawn.
  @discardableResult
  public mutating func draw(_ model: ScreenModel, on canvas: inout Canvas) -> Int {
    guard rotation != .none else { return drawUpright(model, on: &canvas) }
    let size = rotation.pictureSize(screenWidth: canvas.width, screenHeight: canvas.height)
    var upright =
      picture.flatMap { $0.width == size.width && $0.height == size.height ? $0 : nil }
      ?? Canvas(width: size.width, height: size.height)
    picture = nil  // one owner while drawing: no copy of the pixels
    let drawn = drawUpright(model, on: &upright)
    for rect in upright.takeDirty() { canvas.copy(upright, rect: rect, rotation: rotation) }
    picture = upright
    return drawn
  }

  private mutating func drawUpright(_ model: ScreenModel, on canvas: inout Canvas) -> Int {
    let newLayout = ScreenLayout(
      width: canvas.width, height: canvas.height, model: model, font: font)
    let elements = Self.elements(for: model, layout: newLayout)
    var drawn = 0
    if needsFullRedraw || layout != newLayout {
      canvas.fill(canvas.bounds, theme.background)
      canvas.markDirty(canvas.bounds)
      for element in elements { paint(element, layout: newLayout, on: &canvas) }
      drawn = elements.count
    } else {
      let old = Set(previous)
      let current = Set(elements)
      let toDraw = elements.filter { !old.contains($0) }
      for gone in previous where !current.contains(gone) {
        if toDraw.contains(where: { $0.rect.intersection(gone.rect) == gone.rect }) { continue }
        canvas.fill(gone.rect, theme.background)
        canvas.markDirty(gone.rect)
      }
      for element in toDraw {
        paint(element, layout: newLayout, on: &canvas)
        canvas.markDirty(element.rect)
      }
      drawn = toDraw.count
    }
    layout = newLayout
    previous = elements
    needsFullRedraw = false
    return drawn
  }

  /// A whole frame of `model` on a fresh canvas.
  public static func frame(
    _ model: ScreenModel, width: Int, height: Int, font: BitmapFont,
    rotation: ScreenRotation = .none
  ) -> Canvas {
    frame(model, width: width, height: height, font: .bitmap(font), rotation: rotation)
  }

  /// A whole frame of `model` on a fresh canvas.
  public static func frame(
    _ model: ScreenModel, width: Int, height: Int, font: ScreenFont = .builtin,
    rotation: ScreenRotation = .none
  ) -> Canvas {
    var canvas = Canvas(width: width, height: height)
    var renderer = ScreenRenderer(font: font, rotation: rotation)
    renderer.draw(model, on: &canvas)
    return canvas
  }

  // MARK: - Elements

  enum BoxContent: Hashable {
    case empty
    case dot
    case digit(UInt8)
  }

  enum Content: Hashable {
    case prompt(String)
    case box(BoxContent, cursor: Bool, dimmed: Bool)
    case eye(open: Bool)
    case notice(String)
    case panel(ScreenPanel)
    case key(PadKey, pressed: Bool, enabled: Bool)
  }

  struct Element: Hashable {
    var rect: Rect
    var content: Content
  }

  static func elements(for model: ScreenModel, layout: ScreenLayout) -> [Element] {
    var list: [Element] = []
    let entering: Bool
    switch model.phase {
    case .idle, .entering, .checking:
      entering = model.phase != .checking
      let checking = !entering
      list.append(
        Element(
          rect: layout.promptRect, content: .prompt(checking ? ScreenText.checking : model.prompt)))
      let filled = max(0, min(model.filled, layout.boxRects.count))
      for (i, rect) in layout.boxRects.enumerated() {
        var content = BoxContent.empty
        if i < filled {
          if let digits = model.digits, i < digits.count {
            content = .digit(digits[i])
          } else {
            content = .dot
          }
        }
        let cursor = entering && model.cursor == i
        list.append(Element(rect: rect, content: .box(content, cursor: cursor, dimmed: checking)))
      }
      if model.showsRevealToggle {
        list.append(Element(rect: layout.eyeRect, content: .eye(open: model.revealed)))
      }
      if let notice = model.notice, !notice.isEmpty {
        list.append(Element(rect: layout.noticeRect, content: .notice(notice)))
      }
    default:
      entering = false
      list.append(Element(rect: layout.panelRect, content: .panel(ScreenPanel(model.phase))))
    }
    if let keypad = model.keypad {
      for row in 0..<4 {
        for column in 0..<3 {
          let key = keypad.key(row: row, column: column)
          list.append(
            Element(
              rect: layout.padKeyRects[row * 3 + column],
              content: .key(key, pressed: entering && keypad.pressed == key, enabled: entering)))
        }
      }
    }
    return list
  }

  // MARK: - Painting

  private mutating func paint(_ element: Element, layout: ScreenLayout, on canvas: inout Canvas) {
    let rect = element.rect
    canvas.fill(rect, theme.background)
    switch element.content {
    case .prompt(let line):
      let size = text.fit(line, width: rect.width, preferred: layout.textSize)
      text.drawCentered(line, in: rect, size: size, color: theme.text, on: &canvas)
    case .notice(let line):
      let size = text.fit(line, width: rect.width, preferred: layout.smallSize)
      text.drawCentered(line, in: rect, size: size, color: theme.notice, on: &canvas)
    case .box(let content, let cursor, let dimmed):
      paintBox(rect, content: content, cursor: cursor, dimmed: dimmed, layout: layout, on: &canvas)
    case .eye(let open):
      paintEye(rect, open: open, on: &canvas)
    case .panel(let panel):
      paintPanel(rect, panel: panel, layout: layout, on: &canvas)
    case .key(let key, let pressed, let enabled):
      paintKey(rect, key: key, pressed: pressed, enabled: enabled, layout: layout, on: &canvas)
    }
  }

  private mutating func paintBox(
    _ rect: Rect, content: BoxContent, cursor: Bool, dimmed: Bool, layout: ScreenLayout,
    on canvas: inout Canvas
  ) {
    let radius = max(2, rect.width / 6)
    let border = max(1, rect.width / 20)
    let borderColor = cursor ? theme.accent : theme.boxBorder
    canvas.strokeRoundedRect(
      rect, radius: radius, thickness: cursor ? border * 2 : border, borderColor,
      inside: theme.boxFill)
    let ink = dimmed ? theme.dimText : theme.text
    switch content {
    case .empty:
      break
    case .dot:
      canvas.fillDisc(
        centerX2: 2 * rect.x + rect.width, centerY2: 2 * rect.y + rect.height,
        radius: max(2, rect.width * 16 / 100), ink)
    case .digit(let d):
      let digit = String(Character(Unicode.Scalar(0x30 + UInt32(d % 10))!))
      let size = min(layout.digitSize, font.size(fittingHeight: rect.height * 6 / 10))
      text.drawCentered(digit, in: rect, size: size, color: ink, on: &canvas)
    }
  }

  /// An eye: an almond outline and a pupil; a slash across it while the entry is masked.
  private func paintEye(_ rect: Rect, open: Bool, on canvas: inout Canvas) {
    let color = open ? theme.accent : theme.dimText
    let w = rect.width
    let h = rect.height * 6 / 10
    let top = rect.y + (rect.height - h) / 2
    let t = max(1, w / 14)
    // The almond: inside two large circles, one centred below the eye and one above.
    let r = Double(w) * 0.62
    let cx = Double(w) / 2
    let offset = r - Double(h) / 2
    func inside(_ dx: Int, _ dy: Int, shrink: Double) -> Bool {
      let x = Double(dx) + 0.5 - cx
      let y = Double(dy) + 0.5 - Double(h) / 2
      let rr = (r - shrink) * (r - shrink)
      let a = (y - offset) * (y - offset) + x * x <= rr
      let b = (y + offset) * (y + offset) + x * x <= rr
      return a && b
    }
    let almond = Rect(x: rect.x, y: top, width: w, height: h)
    canvas.fill(almond, color) { dx, dy in
      inside(dx, dy, shrink: 0) && !inside(dx, dy, shrink: Double(t))
    }
    let pupil = max(2, h / 4)
    if open {
      canvas.fillDisc(centerX2: 2 * rect.x + w, centerY2: 2 * top + h, radius: pupil, color)
    } else {
      canvas.fillRing(
        centerX2: 2 * rect.x + w, centerY2: 2 * top + h, outer: pupil, inner: max(0, pupil - t),
        color)
      canvas.fillLine(
        x0: rect.x + w / 8, y0: rect.maxY - rect.height / 8, x1: rect.maxX - w / 8,
        y1: rect.y + rect.height / 8,
        thickness: t + 1, color)
    }
  }

  private mutating func paintPanel(
    _ rect: Rect, panel: ScreenPanel, layout: ScreenLayout, on canvas: inout Canvas
  ) {
    let color: Color
    switch panel.kind {
    case .granted: color = theme.granted
    case .denied: color = theme.denied
    case .locked: color = theme.locked
    case .unavailable: color = theme.unavailable
    case .noResponse: color = theme.noResponse
    }
    let radius = max(4, min(rect.width, rect.height) / 14)
    canvas.fillRoundedRect(rect, radius: radius, color)
    let inner = rect.insetBy(max(4, rect.width / 20))
    let titleSize = text.fit(panel.title, width: inner.width, preferred: layout.textSize)
    let titleH = font.lineHeight(titleSize)
    let detailPreferred = max(1, layout.textSize * 2 / 3)
    var detailSize = detailPreferred
    for line in panel.details {
      detailSize = min(detailSize, text.fit(line, width: inner.width, preferred: detailPreferred))
    }
    if panel.details.isEmpty { detailSize = 1 }
    let detailH = font.lineHeight(detailSize)
    let lineGap = detailH / 3
    let textH = titleH + panel.details.count * (detailH + lineGap)
    let icon = max(8, min(inner.height - textH - titleH / 2, inner.width / 3, titleH * 3))
    let gap = titleH / 2
    let total = icon + gap + textH
    var y = inner.y + max(0, (inner.height - total) / 2)
    let iconRect = Rect(x: inner.midX - icon / 2, y: y, width: icon, height: icon)
    paintIcon(panel.kind, in: iconRect, background: color, on: &canvas)
    y += icon + gap
    text.drawCentered(
      panel.title, in: Rect(x: inner.x, y: y, width: inner.width, height: titleH),
      size: titleSize, color: theme.text, on: &canvas)
    y += titleH + lineGap
    for line in panel.details {
      let fitted = text.truncated(line, width: inner.width, size: detailSize)
      text.drawCentered(
        fitted, in: Rect(x: inner.x, y: y, width: inner.width, height: detailH), size: detailSize,
        color: theme.text, on: &canvas)
      y += detailH + lineGap
    }
  }

  /// A white disc with a sign in the panel's colour: tick, cross, padlock, clock, "!".
  private func paintIcon(
    _ kind: ScreenPanel.Kind, in r: Rect, background: Color, on canvas: inout Canvas
  ) {
    let cx2 = 2 * r.x + r.width
    let cy2 = 2 * r.y + r.height
    canvas.fillDisc(centerX2: cx2, centerY2: cy2, radius: r.width / 2, theme.text)
    let s = r.width
    let t = max(2, s / 9)
    func at(_ fx: Int, _ fy: Int) -> (Int, Int) { (r.x + s * fx / 100, r.y + s * fy / 100) }
    switch kind {
    case .granted:
      let (ax, ay) = at(28, 52)
      let (bx, by) = at(44, 68)
      let (cx, cy) = at(73, 36)
      canvas.fillLine(x0: ax, y0: ay, x1: bx, y1: by, thickness: t, background)
      canvas.fillLine(x0: bx, y0: by, x1: cx, y1: cy, thickness: t, background)
    case .denied:
      let (ax, ay) = at(33, 33)
      let (bx, by) = at(67, 67)
      canvas.fillLine(x0: ax, y0: ay, x1: bx, y1: by, thickness: t, background)
      canvas.fillLine(x0: ax, y0: by, x1: bx, y1: ay, thickness: t, background)
    case .locked:
      // Shackle: the upper half of a ring on two legs, then the body over the legs' ends.
      let ringX2 = cx2
      let ringY2 = 2 * (r.y + s * 36 / 100)
      let outer = s * 15 / 100
      let inner = outer - t
      let shackle = Rect(
        x: r.x + s * 30 / 100, y: r.y + s * 18 / 100, width: s * 40 / 100, height: s * 34 / 100)
      canvas.fill(shackle, background) { dx, dy in
        let px = 2 * (shackle.x + dx) + 1 - ringX2
        let py = 2 * (shackle.y + dy) + 1 - ringY2
        let d = px * px + py * py
        if py <= 0 { return d <= 4 * outer * outer && d > 4 * inner * inner }
        return abs(px) <= 2 * outer && abs(px) > 2 * inner
      }
      let body = Rect(
        x: r.x + s * 28 / 100, y: r.y + s * 46 / 100, width: s * 44 / 100, height: s * 32 / 100)
      canvas.fillRoundedRect(body, radius: t / 2, background)
    case .noResponse:
      canvas.fillRing(
        centerX2: cx2, centerY2: cy2, outer: s * 32 / 100, inner: s * 32 / 100 - t, background)
      let (mx, my) = at(50, 50)
      let (hx, hy) = at(50, 30)
      let (kx, ky) = at(64, 58)
      canvas.fillLine(x0: mx, y0: my, x1: hx, y1: hy, thickness: t, background)
      canvas.fillLine(x0: mx, y0: my, x1: kx, y1: ky, thickness: t, background)
    case .unavailable:
      let (ax, ay) = at(50, 26)
      let (bx, by) = at(50, 58)
      canvas.fillLine(x0: ax, y0: ay, x1: bx, y1: by, thickness: t + 1, background)
      canvas.fillDisc(
        centerX2: cx2, centerY2: 2 * (r.y + s * 73 / 100), radius: (t + 1) / 2 + 1, background)
    }
  }

  private mutating func paintKey(
    _ rect: Rect, key: PadKey, pressed: Bool, enabled: Bool, layout: ScreenLayout,
    on canvas: inout Canvas
  ) {
    var fill: Color
    switch key {
    case .digit: fill = theme.key
    case .ok: fill = theme.okKey
    case .backspace: fill = theme.eraseKey
    }
    if pressed { fill = theme.keyPressed }
    if !enabled { fill = fill.mixed(with: theme.background, amount: 128) }
    let ink = enabled ? theme.text : theme.dimText
    canvas.fillRoundedRect(rect, radius: max(3, min(rect.width, rect.height) / 6), fill)
    // One size for every key: the one at which "OK" fits.
    let labelSize = text.fit(
      "OK", width: rect.width * 6 / 10,
      preferred: font.size(fittingHeight: rect.height * 45 / 100))
    switch key {
    case .digit(let d):
      let label = String(Character(Unicode.Scalar(0x30 + UInt32(d % 10))!))
      text.drawCentered(label, in: rect, size: labelSize, color: ink, on: &canvas)
    case .ok:
      text.drawCentered("OK", in: rect, size: labelSize, color: ink, on: &canvas)
    case .backspace:
      // A left-pointing key cap with an x inside.
      let h = max(8, rect.height * 36 / 100)
      let w = h * 3 / 2
      let x0 = rect.midX - w / 2
      let y0 = rect.midY - h / 2
      let t = max(1, h / 9)
      let tip = h / 2
      canvas.fillLine(x0: x0, y0: y0 + h / 2, x1: x0 + tip, y1: y0, thickness: t, ink)
      canvas.fillLine(x0: x0, y0: y0 + h / 2, x1: x0 + tip, y1: y0 + h, thickness: t, ink)
      canvas.fillLine(x0: x0 + tip, y0: y0, x1: x0 + w, y1: y0, thickness: t, ink)
      canvas.fillLine(x0: x0 + tip, y0: y0 + h, x1: x0 + w, y1: y0 + h, thickness: t, ink)
      canvas.fillLine(x0: x0 + w, y0: y0, x1: x0 + w, y1: y0 + h, thickness: t, ink)
      let c = x0 + tip + (w - tip) / 2
      let d = h / 5
      canvas.fillLine(
        x0: c - d, y0: y0 + h / 2 - d, x1: c + d, y1: y0 + h / 2 + d, thickness: t, ink)
      canvas.fillLine(
        x0: c - d, y0: y0 + h / 2 + d, x1: c + d, y1: y0 + h / 2 - d, thickness: t, ink)
    }
  }
}

/// What a verdict or lockout card shows.
struct ScreenPanel: Hashable {
  enum Kind: Hashable {
    case granted
    case denied
    case locked
    case unavailable
    case noResponse
  }
  var kind: Kind
  var title: String
  var details: [String]

  init(_ phase: ScreenModel.Phase) {
    switch phase {
    case .granted: kind = .granted
    case .denied: kind = .denied
    case .locked: kind = .locked
    case .noResponse: kind = .noResponse
    default: kind = .unavailable
    }
    title = ScreenText.title(phase)
    details = ScreenText.details(phase)
  }
}
