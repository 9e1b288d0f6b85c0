import PinpadCore
import PinpadScreen
import Testing

@testable import PinpadDaemon

/// The screen a DRM display keeps while its connector is gone and when it comes back in
/// another mode (pinpadd(8), DISPLAY).
@Suite struct HeldScreenTests {
  var entering: ScreenModel {
    var model = ScreenModel()
    model.phase = .entering
    model.boxes = 4
    model.filled = 2
    model.cursor = 2
    return model
  }

  @Test func offScreenModelsAreKeptNotDrawnAndRedrawnWhole() {
    var screen = HeldScreen(width: 800, height: 480, font: .builtin, rotation: .none)
    let first = screen.draw(ScreenModel())
    #expect(first)
    _ = screen.takeDirty()
    screen.lostScreen()
    let before = screen.picture.pixels
    let drawn = screen.draw(entering)
    #expect(!drawn)
    #expect(screen.picture.pixels == before)
    #expect(screen.lastModel == entering)
    screen.redraw()
    #expect(screen.state == .showing)
    let dirty = screen.takeDirty()
    #expect(dirty == [Rect(x: 0, y: 0, width: 800, height: 480)])
    #expect(screen.picture.pixels == ScreenRenderer.frame(entering, width: 800, height: 480).pixels)
  }

  @Test("a closed screen draws nothing and keeps nothing; no screen nor redraw brings it back")
  func aClosedScreenStaysClosed() {
    var screen = HeldScreen(width: 800, height: 480, font: .builtin, rotation: .none)
    _ = screen.draw(ScreenModel())
    screen.close()
    let drawn = screen.draw(entering)
    #expect(!drawn)
    #expect(screen.lastModel == ScreenModel())
    screen.lostScreen()
    screen.redraw()
    #expect(screen.state == .closed)
    #expect(screen.isClosed && !screen.isReleased)
  }

  @Test func aNewSizeIsLaidOutAgainWithTheLastModel() {
    var screen = HeldScreen(width: 1, height: 1, font: .builtin, rotation: .none)
    screen.lostScreen()
    let drawn = screen.draw(entering)
    #expect(!drawn)
    screen.resize(width: 1280, height: 800, font: .builtin, rotation: .clockwise90)
    #expect((screen.width, screen.height) == (1280, 800))
    let whole = ScreenRenderer.frame(entering, width: 1280, height: 800, rotation: .clockwise90)
    // The screen as the displays write it out: the upright picture turned on the way.
    var memory = [UInt32](repeating: 0, count: 1280 * 800)
    memory.withUnsafeMutableBytes { raw in
      screen.write(
        .xrgb8888, rects: [Rect(x: 0, y: 0, width: 1280, height: 800)], to: raw.baseAddress!,
        lineLength: 1280 * 4, capacity: raw.count)
    }
    #expect(memory == whole.pixels)
    #expect(screen.renderer.layout != nil)
  }
}
