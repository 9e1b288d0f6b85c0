import PinpadCore
import Testing

@testable import PinpadScreen

private func entering(boxes: Int, filled: Int, digits: [UInt8]? = nil, keypad: Bool = false)
  -> ScreenModel
{
  var m = ScreenModel()
  m.phase = .entering
  m.boxes = boxes
  m.filled = filled
  m.digits = digits
  m.cursor = filled < boxes ? filled : nil
  m.showsRevealToggle = true
  if keypad { m.keypad = OnScreenKeypadModel() }
  return m
}

@Suite struct RendererTests {
  @Test func maskedFramesOfTwoCodesOfEqualLengthAreIdentical() {
    // A masked model carries only a count (digits is nil), so codes 1234 and 9876 arrive
    // as the same models; this pins that drawing them, whole or step by step, agrees.
    for (w, h) in Fixtures.sizes {
      let a = ScreenRenderer.frame(entering(boxes: 6, filled: 4), width: w, height: h)
      let b = ScreenRenderer.frame(entering(boxes: 6, filled: 4), width: w, height: h)
      #expect(a.pixels == b.pixels)
      var r1 = ScreenRenderer()
      var r2 = ScreenRenderer()
      var c1 = Canvas(width: w, height: h)
      var c2 = Canvas(width: w, height: h)
      for n in 0...4 {
        r1.draw(entering(boxes: 6, filled: n), on: &c1)
        r2.draw(entering(boxes: 6, filled: n), on: &c2)
        #expect(c1.pixels == c2.pixels)
      }
    }
  }

  @Test func revealedDigitsDoChangeThePicture() {
    let masked = ScreenRenderer.frame(entering(boxes: 4, filled: 2), width: 800, height: 480)
    let shown = ScreenRenderer.frame(
      entering(boxes: 4, filled: 2, digits: [1, 2]), width: 800, height: 480)
    let other = ScreenRenderer.frame(
      entering(boxes: 4, filled: 2, digits: [3, 9]), width: 800, height: 480)
    #expect(masked.pixels != shown.pixels)
    #expect(shown.pixels != other.pixels)
  }

  @Test func fixedMaskDrawsTheSameWhateverTheLength() {
    // Mask=fixed: the daemon passes a constant box count and filled state, so entries of
    // 3 and 7 digits arrive as the same model; nothing else in the model tracks length.
    func fixedModel(typed: Int) -> ScreenModel {
      var m = ScreenModel()
      m.phase = typed == 0 ? .idle : .entering
      m.boxes = 4
      m.filled = typed == 0 ? 0 : 4
      m.cursor = nil
      return m
    }
    let three = ScreenRenderer.frame(fixedModel(typed: 3), width: 800, height: 480)
    let seven = ScreenRenderer.frame(fixedModel(typed: 7), width: 800, height: 480)
    #expect(three.pixels == seven.pixels)
  }

  @Test func incrementalRedrawsEqualAFreshFrame() {
    var models: [ScreenModel] = [ScreenModel()]
    for n in 1...5 { models.append(entering(boxes: 6, filled: n)) }
    models.append(entering(boxes: 6, filled: 3, digits: [4, 5, 6]))
    var checking = entering(boxes: 6, filled: 6)
    checking.phase = .checking
    checking.notice = "Sending"
    models.append(checking)
    models.append(Fixtures.model { $0.phase = .denied(message: nil, attemptsLeft: 2) })
    models.append(Fixtures.model { $0.phase = .locked(secondsLeft: 27) })
    models.append(Fixtures.model { $0.phase = .locked(secondsLeft: 26) })
    models.append(entering(boxes: 6, filled: 1))
    var k = entering(boxes: 4, filled: 1, keypad: true)
    models.append(k)
    k.keypad?.pressed = .digit(3)
    models.append(k)
    k.keypad?.pressed = nil
    k.filled = 2
    k.cursor = 2
    models.append(k)
    k.phase = .granted(message: "Welcome home")
    models.append(k)
    models.append(ScreenModel())
    for (w, h) in Fixtures.sizes {
      var renderer = ScreenRenderer()
      var canvas = Canvas(width: w, height: h)
      for (i, model) in models.enumerated() {
        renderer.draw(model, on: &canvas)
        let fresh = ScreenRenderer.frame(model, width: w, height: h)
        #expect(canvas.pixels == fresh.pixels, "frame \(i) at \(w)x\(h) differs from a fresh frame")
      }
    }
  }

  @Test func oneDigitRedrawsOnlyTwoBoxes() {
    var renderer = ScreenRenderer()
    var canvas = Canvas(width: 800, height: 480)
    renderer.draw(entering(boxes: 6, filled: 2), on: &canvas)
    _ = canvas.takeDirty()
    let drawn = renderer.draw(entering(boxes: 6, filled: 3), on: &canvas)
    let dirty = canvas.takeDirty()
    #expect(drawn == 2)  // the box that got the dot, the box that got the cursor
    let layout = renderer.layout!
    #expect(Set(dirty) == [layout.boxRects[2], layout.boxRects[3]])
    #expect(renderer.draw(entering(boxes: 6, filled: 3), on: &canvas) == 0)
    #expect(canvas.takeDirty().isEmpty)
  }

  @Test func invalidateRedrawsEverything() {
    var renderer = ScreenRenderer()
    var canvas = Canvas(width: 320, height: 240)
    renderer.draw(ScreenModel(), on: &canvas)
    _ = canvas.takeDirty()
    renderer.invalidate()
    renderer.draw(ScreenModel(), on: &canvas)
    #expect(canvas.takeDirty() == [canvas.bounds])
  }

  @Test func boxesFitOnTheScreenForEveryLength() {
    for (w, h) in Fixtures.sizes + [(480, 800)] {
      for keypad in [false, true] {
        for n in 1...32 {
          let m = entering(boxes: n, filled: 0, keypad: keypad)
          let layout = ScreenLayout(width: w, height: h, model: m, font: .builtin)
          #expect(layout.boxRects.count == n)
          let all = layout.boxRects + [layout.eyeRect, layout.promptRect, layout.noticeRect]
          for r in all where !r.isEmpty {
            #expect(layout.mainArea.intersection(r) == r, "\(n) boxes at \(w)x\(h) spill out")
          }
          for (i, a) in layout.boxRects.enumerated() {
            #expect(a.width >= 8, "\(n) boxes at \(w)x\(h) are too small")
            for b in layout.boxRects[(i + 1)...] { #expect(a.intersection(b).isEmpty) }
            #expect(a.intersection(layout.eyeRect).isEmpty)
          }
          if keypad { #expect(layout.mainArea.intersection(layout.padRect).isEmpty) }
        }
      }
    }
  }
}

@Suite struct KeypadTests {
  @Test func everyKeyCentreHitsThatKey() {
    for (w, h) in Fixtures.sizes + [(480, 800)] {
      for cells in [ScrambledLayout.phone, [7, 3, 0, 9, 1, 5, 2, 8, 4, 6]] {
        var m = ScreenModel()
        m.keypad = OnScreenKeypadModel(digitCells: cells)
        let layout = ScreenLayout(width: w, height: h, model: m, font: .builtin)
        #expect(layout.padKeyRects.count == 12)
        for row in 0..<4 {
          for column in 0..<3 {
            let key = m.keypad!.key(row: row, column: column)
            let r = layout.padKeyRects[row * 3 + column]
            #expect(layout.padKey(atX: r.midX, y: r.midY) == key)
            #expect(layout.padKey(atX: r.x, y: r.y) == key)
            #expect(layout.padKey(atX: r.maxX - 1, y: r.maxY - 1) == key)
            #expect(layout.rect(of: key) == r)
          }
        }
        let pad = layout.padRect
        for (x, y) in [
          (pad.x - 1, pad.midY), (pad.maxX, pad.midY), (pad.midX, pad.y - 1), (pad.midX, pad.maxY),
          (0, 0),
        ] {
          #expect(layout.padKey(atX: x, y: y) == nil)
        }
        for r in layout.boxRects { #expect(layout.padKey(atX: r.midX, y: r.midY) == nil) }
      }
    }
  }

  @Test func noKeypadNoKeys() {
    let layout = ScreenLayout(width: 800, height: 480, model: ScreenModel(), font: .builtin)
    #expect(layout.padKey(atX: 400, y: 240) == nil)
    #expect(layout.rect(of: .ok) == nil)
  }

  /// A small deterministic generator (SplitMix64) so seeds are repeatable.
  struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  @Test func scrambledLayoutIsAPermutationThatChangesWithTheSeed() {
    var seen = Set<[UInt8]>()
    for seed in 0..<200 as Range<UInt64> {
      var g = SeededGenerator(state: seed)
      let cells = ScrambledLayout.make(using: &g)
      #expect(cells.count == 10)
      #expect(Set(cells) == Set(0...9))
      seen.insert(cells)
      var again = SeededGenerator(state: seed)
      #expect(ScrambledLayout.make(using: &again) == cells)
    }
    #expect(seen.count > 190)
    var g = SystemRandomNumberGenerator()
    #expect(Set(ScrambledLayout.make(using: &g)) == Set(0...9))
  }
}
