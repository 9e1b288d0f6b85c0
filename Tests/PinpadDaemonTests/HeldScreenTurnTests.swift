import PinpadCore
import PinpadScreen
import Testing

@testable import PinpadDaemon

/// A turned screen (pinpadd.conf(5), [Display] Rotate=) written out by the DRM and fbdev
/// displays: the same pixels as the snapshot display's turned frame, and a digit typed
/// writes only a small part of the screen.
@Suite struct HeldScreenTurnTests {
  func model(filled: Int) -> ScreenModel {
    var model = ScreenModel()
    model.phase = .entering
    model.boxes = 6
    model.filled = filled
    model.cursor = filled
    return model
  }

  @Test(arguments: ScreenRotation.allCases)
  func theWrittenScreenIsTheTurnedFrameAndADigitWritesLittle(_ rotation: ScreenRotation) {
    let (w, h) = (800, 480)
    var screen = HeldScreen(width: w, height: h, font: .builtin, rotation: rotation)
    #expect((screen.width, screen.height) == (w, h))
    var memory = [UInt32](repeating: 0, count: w * h)
    func put(_ rects: [Rect]) {
      memory.withUnsafeMutableBytes { raw in
        screen.write(
          .xrgb8888, rects: rects, to: raw.baseAddress!, lineLength: w * 4, capacity: raw.count)
      }
    }
    let first = screen.draw(model(filled: 2))
    #expect(first)
    let whole = screen.takeDirty()
    #expect(whole == [Rect(x: 0, y: 0, width: w, height: h)])
    put(whole)
    #expect(
      memory
        == ScreenRenderer.frame(model(filled: 2), width: w, height: h, rotation: rotation).pixels)
    let second = screen.draw(model(filled: 3))
    #expect(second)
    let digit = screen.takeDirty()
    put(digit)
    #expect(
      memory
        == ScreenRenderer.frame(model(filled: 3), width: w, height: h, rotation: rotation).pixels)
    let area = digit.reduce(0) { $0 + $1.width * $1.height }
    #expect(area > 0 && area < w * h / 10)
  }
}
