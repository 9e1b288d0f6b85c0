import PinpadCore
import Testing

@testable import PinpadScreen

/// `[Display] Rotate=` (pinpadd.conf(5)): the picture is laid out at the turned size and
/// turned clockwise onto the screen.
@Suite struct RotationTests {
  static let model = Fixtures.states.first { $0.0 == "keypad-entering" }!.1
  static let later = Fixtures.model {
    $0.phase = .entering
    $0.filled = 3
    $0.cursor = 3
    $0.showsRevealToggle = true
    $0.keypad = OnScreenKeypadModel(pressed: .digit(7))
  }

  @Test(arguments: ScreenRotation.allCases)
  func aTurnedFrameIsTheUprightPictureTurnedClockwise(_ rotation: ScreenRotation) {
    let (w, h) = (800, 480)
    let size = rotation.pictureSize(screenWidth: w, screenHeight: h)
    let upright = ScreenRenderer.frame(Self.model, width: size.width, height: size.height)
    let turned = ScreenRenderer.frame(Self.model, width: w, height: h, rotation: rotation)
    #expect(turned.width == w && turned.height == h)
    var differing = 0
    for y in 0..<h {
      for x in 0..<w {
        let p = rotation.picturePoint(screenX: x, screenY: y, screenWidth: w, screenHeight: h)
        if turned[x, y] != upright[p.x, p.y] { differing += 1 }
      }
    }
    #expect(differing == 0)
  }

  @Test func ninetyDegreesPutsThePicturesTopLeftCornerAtTheScreensTopRight() {
    var picture = Canvas(width: 4, height: 2)
    picture.fill(Rect(x: 0, y: 0, width: 1, height: 1), Color(xrgb: 0xFF0000))
    var screen = Canvas(width: 2, height: 4)
    let rect = screen.copy(picture, rect: picture.bounds, rotation: .clockwise90)
    #expect(rect == screen.bounds)
    #expect(screen[1, 0] == 0xFF0000)
    #expect(screen.pixels.filter { $0 != 0 }.count == 1)
  }

  @Test(arguments: ScreenRotation.allCases)
  func everyPixelOfAPartTurnedLandsWhereTheTurnSaysAtAnySize(_ rotation: ScreenRotation) {
    // Sides and offsets that are no multiple of the 4 x 4 blocks or 32 x 32 tiles the
    // copy works in; every pixel of the picture distinct.
    let (pw, ph) = (70, 37)
    var picture = Canvas(width: pw, height: ph)
    for y in 0..<ph { for x in 0..<pw { picture.pixels[y * pw + x] = UInt32(y * pw + x + 1) } }
    let turned = rotation == .clockwise90 || rotation == .clockwise270
    let (sw, sh) = turned ? (ph, pw) : (pw, ph)
    var screen = Canvas(width: sw, height: sh)
    let part = Rect(x: 3, y: 5, width: 61, height: 29)
    screen.copy(picture, rect: part, rotation: rotation)
    var wrong = 0
    for y in 0..<sh {
      for x in 0..<sw {
        let p = rotation.picturePoint(screenX: x, screenY: y, screenWidth: sw, screenHeight: sh)
        let inside = part.intersection(Rect(x: p.x, y: p.y, width: 1, height: 1)).isEmpty == false
        if screen[x, y] != (inside ? picture[p.x, p.y] : 0) { wrong += 1 }
      }
    }
    #expect(wrong == 0)
  }

  @Test(arguments: ScreenRotation.allCases)
  func redrawingOnlyWhatChangedGivesTheWholeTurnedFrame(_ rotation: ScreenRotation) {
    var canvas = Canvas(width: 800, height: 480)
    var renderer = ScreenRenderer(rotation: rotation)
    renderer.draw(Self.model, on: &canvas)
    _ = canvas.takeDirty()
    let drawn = renderer.draw(Self.later, on: &canvas)
    #expect(drawn > 0 && drawn < 10)
    let dirty = canvas.takeDirty()
    #expect(!dirty.isEmpty && !dirty.contains(canvas.bounds))
    let whole = ScreenRenderer.frame(Self.later, width: 800, height: 480, rotation: rotation)
    #expect(canvas.pixels == whole.pixels)
  }

  @Test(arguments: ScreenRotation.allCases)
  func theTurnedScreensMatchTheirGoldens(_ rotation: ScreenRotation) throws {
    for (w, h) in [(800, 480), (480, 800)] {
      for state in ["keypad-entering", "entering-masked"] {
        let model = Fixtures.states.first { $0.0 == state }!.1
        let canvas = ScreenRenderer.frame(model, width: w, height: h, rotation: rotation)
        try Goldens.check(canvas, named: "rotate\(rotation.rawValue)-\(state)-\(w)x\(h)")
      }
    }
  }
}
