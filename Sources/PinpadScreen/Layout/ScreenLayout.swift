import PinpadCore

/// Where every part of a screen goes, for one screen size and one model's shape
/// (box count, eye, on-screen keypad). Sizes are designed at 320×240 and scaled with
/// the screen; the boxes wrap onto up to four rows, then shrink, to fit 1...32 of them.
public struct ScreenLayout: Equatable, Sendable {
  public let width: Int
  public let height: Int
  /// The column holding the prompt, boxes and notice (the left part beside a keypad).
  public let mainArea: Rect
  /// The line above the boxes.
  public let promptRect: Rect
  /// One rectangle per box, in digit order.
  public let boxRects: [Rect]
  /// The reveal eye, `.zero` when not shown.
  public let eyeRect: Rect
  /// The line under the boxes.
  public let noticeRect: Rect
  /// The card that replaces prompt, boxes and notice for verdicts and lockouts.
  public let panelRect: Rect
  /// The whole on-screen keypad, `.zero` without one.
  public let padRect: Rect
  /// Keys in reading order (row 0 column 0 first; 12 of them), empty without a keypad.
  public let padKeyRects: [Rect]
  /// The digit order of the keypad this layout was made for.
  public let padDigitCells: [UInt8]
  /// Text sizes (a bitmap font's scale, an outline font's line height in pixels) for
  /// the prompt, the small lines, and digits in boxes.
  public let textSize: Int
  public let smallSize: Int
  public let digitSize: Int

  /// `px(v)`: a length of `v` pixels on a 320×240 screen, scaled to this one.
  private static func unit(_ width: Int, _ height: Int) -> Int { min(width * 3, height * 4) }

  public init(width: Int, height: Int, model: ScreenModel, font: ScreenFont) {
    self.width = width
    self.height = height
    let u = Self.unit(width, height)
    func px(_ v: Int) -> Int { max(1, v * u / 960) }

    let margin = px(10)
    let bounds = Rect(x: 0, y: 0, width: width, height: height)
    let content = bounds.insetBy(margin)
    let hasPad = model.keypad != nil
    var main = content
    var pad = Rect.zero
    if hasPad {
      if width >= height {
        let split = width * 47 / 100
        main = Rect(
          x: content.x, y: content.y, width: split - content.x - margin / 2, height: content.height)
        pad = Rect(
          x: split + margin / 2, y: content.y, width: content.maxX - split - margin / 2,
          height: content.height)
      } else {
        let split = height * 40 / 100
        main = Rect(x: content.x, y: content.y, width: content.width, height: split - content.y)
        pad = Rect(
          x: content.x, y: split + margin / 2, width: content.width,
          height: content.maxY - split - margin / 2)
      }
    }
    mainArea = main
    panelRect = main.insetBy(px(4))

    textSize = font.size(forHeight: px(hasPad ? 20 : 22))
    smallSize = font.size(forHeight: px(13))
    let promptH = font.lineHeight(textSize)
    let noticeH = font.lineHeight(smallSize)
    let gapAbove = px(14)
    let gapBelow = px(10)

    // Boxes, with the eye beside them.
    let n = max(1, min(32, model.boxes))
    let eyeSize = model.showsRevealToggle ? px(hasPad ? 26 : 30) : 0
    let eyeGap = model.showsRevealToggle ? px(10) : 0
    let availableW = main.width - px(8) - eyeSize - eyeGap
    let availableH = main.height - promptH - noticeH - gapAbove - gapBelow - px(8)
    let preferred = px(hasPad ? 34 : 42)
    let gap = max(2, preferred / 6)
    let smallest = px(20)
    // The fewest rows that give boxes of a comfortable size, else the rows giving the
    // largest boxes.
    func boxSize(rows r: Int) -> Int {
      let perRow = (n + r - 1) / r
      return min(preferred, (availableW + gap) / perRow - gap, (availableH + gap) / r - gap)
    }
    var rows = 1
    var box = boxSize(rows: 1)
    for r in 1...8 where r <= n {
      let b = boxSize(rows: r)
      if b >= smallest {
        rows = r
        box = b
        break
      }
      if b > box {
        rows = r
        box = b
      }
    }
    box = max(4, box)
    let perRow = (n + rows - 1) / rows
    let blockW = perRow * box + (perRow - 1) * gap
    let blockH = rows * box + (rows - 1) * gap
    let totalW = blockW + eyeGap + eyeSize
    let totalH = promptH + gapAbove + blockH + gapBelow + noticeH
    let top = main.y + max(0, (main.height - totalH) / 2 - (hasPad ? 0 : px(8)))
    let blockX = main.x + (main.width - totalW) / 2
    let blockY = top + promptH + gapAbove
    var rects: [Rect] = []
    for i in 0..<n {
      let row = i / perRow
      let col = i % perRow
      let inRow = row == rows - 1 ? n - row * perRow : perRow
      let rowW = inRow * box + (inRow - 1) * gap
      let x0 = blockX + (blockW - rowW) / 2
      rects.append(
        Rect(x: x0 + col * (box + gap), y: blockY + row * (box + gap), width: box, height: box))
    }
    boxRects = rects
    eyeRect =
      model.showsRevealToggle
      ? Rect(
        x: blockX + blockW + eyeGap, y: blockY + (blockH - eyeSize) / 2, width: eyeSize,
        height: eyeSize)
      : .zero
    digitSize = font.size(fittingHeight: box * 6 / 10)
    promptRect = Rect(x: main.x, y: top, width: main.width, height: promptH)
    noticeRect = Rect(x: main.x, y: blockY + blockH + gapBelow, width: main.width, height: noticeH)

    // The keypad: 3 columns, 4 rows, keys no wider than 1.6 times their height.
    if let keypad = model.keypad {
      var cellH = pad.height / 4
      var cellW = min(pad.width / 3, cellH * 16 / 10)
      cellH = min(cellH, cellW * 10 / 8)
      cellW = min(cellW, pad.width / 3)
      let padW = cellW * 3
      let padH = cellH * 4
      let placed = Rect(
        x: pad.x + (pad.width - padW) / 2, y: pad.y + (pad.height - padH) / 2, width: padW,
        height: padH)
      padRect = placed
      let keyGap = px(5)
      var keys: [Rect] = []
      for row in 0..<4 {
        for col in 0..<3 {
          keys.append(
            Rect(x: placed.x + col * cellW, y: placed.y + row * cellH, width: cellW, height: cellH)
              .insetBy(keyGap / 2))
        }
      }
      padKeyRects = keys
      padDigitCells = keypad.digitCells
    } else {
      padRect = .zero
      padKeyRects = []
      padDigitCells = []
    }
  }

  /// The row and column (0...3, 0...2) of the keypad cell under a point; the gaps
  /// between keys belong to the nearest key. nil outside the keypad.
  public func padCell(atX x: Int, y: Int) -> (row: Int, column: Int)? {
    guard !padRect.isEmpty, padRect.contains(x: x, y: y) else { return nil }
    let column = min(2, (x - padRect.x) * 3 / padRect.width)
    let row = min(3, (y - padRect.y) * 4 / padRect.height)
    return (row, column)
  }

  /// The key under a point (a touch or a click), nil when none.
  public func padKey(atX x: Int, y: Int) -> PadKey? {
    guard let (row, column) = padCell(atX: x, y: y) else { return nil }
    return OnScreenKeypadModel(digitCells: padDigitCells).key(row: row, column: column)
  }

  /// The rectangle of `key`, nil when the layout has no keypad or no such key.
  public func rect(of key: PadKey) -> Rect? {
    guard !padKeyRects.isEmpty else { return nil }
    let model = OnScreenKeypadModel(digitCells: padDigitCells)
    for row in 0..<4 {
      for column in 0..<3 where model.key(row: row, column: column) == key {
        return padKeyRects[row * 3 + column]
      }
    }
    return nil
  }
}
