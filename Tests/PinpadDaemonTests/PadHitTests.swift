import Glibc
import PinpadCore
import PinpadScreen
import PinpadTestSupport
import Testing

@testable import PinpadDaemon

private func keypadModel(_ cells: [UInt8] = ScrambledLayout.phone) -> ScreenModel {
  var model = ScreenModel()
  model.keypad = OnScreenKeypadModel(digitCells: cells)
  return model
}

@Test func snapshotDisplayFindsEveryDrawnKeyAtItsCentre() throws {
  let directory = TempDir(prefix: "pinpadd-padhit")
  let display = try SnapshotDisplay(
    directory: directory.path, width: 800, height: 480, font: .builtin, format: .ppm)
  #expect(display.padKey(atX: 400, y: 240) == nil)  // nothing drawn yet
  display.show(keypadModel([3, 1, 4, 0, 5, 9, 2, 6, 8, 7]))
  let layout = try #require(display.layout)
  let keys: [PadKey] = (0...9).map { .digit(UInt8($0)) } + [.backspace, .ok]
  for key in keys {
    let rect = try #require(layout.rect(of: key))
    #expect(display.padKey(atX: rect.x + rect.width / 2, y: rect.y + rect.height / 2) == key)
  }
  #expect(display.padKey(atX: 2, y: 2) == nil)
  #expect(display.pixelSize! == (800, 480))
}

@Test func displaysWithoutPixelsHaveNoKeys() {
  let none = NoDisplay()
  #expect(none.pixelSize == nil)
  #expect(none.padKey(atX: 0, y: 0) == nil)
}
