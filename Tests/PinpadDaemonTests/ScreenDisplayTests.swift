import CPinpadShim
import Glibc
import PinpadCore
import PinpadScreen
import PinpadSystem
import PinpadTestSupport
import Testing

@testable import PinpadDaemon

private struct FixedScreenInfo: FramebufferQueries {
  var info: FramebufferInfo
  func info(of fd: Int32, path: String) throws -> FramebufferInfo { info }
}

private final class RecordingTerminal: VirtualTerminalDriver {
  var display: Int32 = PINPAD_KD_TEXT
  var keyboard: Int32 = PINPAD_K_XLATE
  var switching = vt_mode()
  var calls: [String] = []
  func displayMode() throws -> Int32 { display }
  func setDisplayMode(_ mode: Int32) throws { display = mode }
  func keyboardMode() throws -> Int32 { keyboard }
  func setKeyboardMode(_ mode: Int32) throws { keyboard = mode }
  func switchMode() throws -> vt_mode { switching }
  func setSwitchMode(_ mode: vt_mode) throws { switching = mode }
  func releaseDisplay(_ value: Int32) throws { calls.append("VT_RELDISP \(value)") }
  func close() { calls.append("close") }
}

/// A file standing in for /dev/fb0: RGB565, 800x480 visible at offset (4, 2), padded rows.
private final class FakeDevice {
  let path: String
  let info = FramebufferInfo(
    name: "fake", width: 800, height: 480, xOffset: 4, yOffset: 2, bitsPerPixel: 16,
    red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6),
    blue: .init(offset: 0, length: 5), lineLength: 1664, memoryLength: 1664 * 490)

  init() {
    var template = Array("/tmp/pinpadd-fbdisplay-XXXXXX".utf8CString)
    let file = OwnedDescriptor(
      taking: template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) })
    ftruncate(file.fd.rawValue, off_t(info.memoryLength))
    path = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
  deinit { unlink(path) }

  func open() throws -> Framebuffer {
    try Framebuffer(path: path, queries: FixedScreenInfo(info: info))
  }

  func bytes() -> [UInt8] {
    let fdOwner = OwnedDescriptor(taking: Glibc.open(path, O_RDONLY))
    let fd = fdOwner.fd.rawValue
    var bytes = [UInt8](repeating: 0, count: info.memoryLength)
    _ = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
    return bytes
  }

  func poison() {
    let fdOwner = OwnedDescriptor(taking: Glibc.open(path, O_WRONLY))
    let fd = fdOwner.fd.rawValue
    let bytes = [UInt8](repeating: 0xA5, count: info.memoryLength)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
  }

  /// What the device memory should hold for `canvas`.
  func expected(_ canvas: Canvas) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: info.memoryLength)
    bytes.withUnsafeMutableBytes { raw in
      PixelFormat.rgb565.write(
        canvas, rects: [canvas.bounds], to: raw.baseAddress!, lineLength: info.lineLength,
        xOffset: info.xOffset, yOffset: info.yOffset, capacity: raw.count)
    }
    return bytes
  }

  func visibleRows(_ bytes: [UInt8]) -> [UInt8] {
    Array(bytes[info.yOffset * info.lineLength..<(info.yOffset + info.height) * info.lineLength])
  }
}

private func entering(_ filled: Int) -> ScreenModel {
  var m = ScreenModel()
  m.phase = .entering
  m.filled = filled
  m.cursor = filled
  return m
}

@Suite struct FramebufferDisplayTests {
  @Test func drawsTheSameFrameAsTheRendererIntoTheDevice() throws {
    let device = FakeDevice()
    let display = try FramebufferDisplay(framebuffer: try device.open(), terminal: nil)
    for n in 0...3 { display.show(entering(n)) }
    let frame = ScreenRenderer.frame(entering(3), width: 800, height: 480)
    #expect(device.visibleRows(device.bytes()) == device.visibleRows(device.expected(frame)))
    display.close()
  }

  @Test func aReleasedTerminalIsNotDrawnAndIsRedrawnWhenAcquired() throws {
    let device = FakeDevice()
    let driver = RecordingTerminal()
    let vt = VirtualTerminal(driver: driver)
    try vt.take()
    let display = try FramebufferDisplay(framebuffer: try device.open(), terminal: vt)
    display.show(entering(1))
    display.handleSignal(SIGUSR1)
    #expect(driver.calls == ["VT_RELDISP 1"])
    device.poison()  // another program draws on the VT meanwhile
    display.show(entering(2))
    #expect(device.bytes().allSatisfy { $0 == 0xA5 })
    display.handleSignal(SIGUSR2)
    #expect(driver.calls == ["VT_RELDISP 1", "VT_RELDISP \(PINPAD_VT_ACKACQ)"])
    let frame = ScreenRenderer.frame(entering(2), width: 800, height: 480)
    let expected = device.expected(frame)
    let got = device.bytes()
    // Every visible pixel redrawn; padding and rows outside the picture left alone.
    for row in 0..<480 {
      let start = (row + 2) * 1664 + 8
      #expect(got[start..<start + 1600] == expected[start..<start + 1600])
    }
    #expect(got[0] == 0xA5)
    display.close()
    #expect(driver.display == PINPAD_KD_TEXT && driver.keyboard == PINPAD_K_XLATE)
    #expect(driver.calls.last == "close")
  }

  @Test func closeClearsTheScreenAndGivesBackTheTerminalOnce() throws {
    let device = FakeDevice()
    let driver = RecordingTerminal()
    let vt = VirtualTerminal(driver: driver)
    try vt.take()
    #expect(driver.display == PINPAD_KD_GRAPHICS && driver.keyboard == PINPAD_K_OFF)
    let display = try FramebufferDisplay(framebuffer: try device.open(), terminal: vt)
    display.show(entering(2))
    display.close()
    display.close()
    display.show(entering(3))
    #expect(device.visibleRows(device.bytes()).allSatisfy { $0 == 0 })
    #expect(driver.display == PINPAD_KD_TEXT)
    #expect(driver.calls.filter { $0 == "close" }.count == 1)
  }

  @Test func theVTSignalsAreUSR1AndUSR2() {
    #expect(FramebufferDisplay.vtSignals == [SIGUSR1, SIGUSR2])
  }
}

@Suite struct SnapshotDisplayTests {
  @Test func writesEachFrameAsANumberedPNG() throws {
    let folder = TempDir(prefix: "pinpadd-snap")
    let dir = folder.path
    let display = try SnapshotDisplay(directory: dir, width: 320, height: 240, font: .builtin)
    display.show(ScreenModel())
    display.show(entering(1))
    var denied = ScreenModel()
    denied.phase = .denied(message: nil, attemptsLeft: 2)
    display.show(denied)
    display.close()
    #expect(display.frameCount == 3)
    #expect(display.path(ofFrame: 2) == dir + "/frame-000002.png")
    let bytes = try #require(DisplayFont.readFile(dir + "/frame-000003.png", limit: 1 << 20))
    let image = try ImageFile.decodePNG(bytes)
    #expect(image.pixels == ScreenRenderer.frame(denied, width: 320, height: 240).pixels)
    #expect(access(dir + "/frame-000004.png", F_OK) != 0)
  }

  @Test func refusesANonsenseSize() {
    #expect(throws: SnapshotError.self) {
      try SnapshotDisplay(directory: "/tmp", width: 0, height: 10)
    }
  }
}

@Suite struct DisplayFontTests {
  @Test func usesTerminusWhenInstalled() throws {
    guard access(DisplayFont.consoleFontDirectory + "Lat15-TerminusBold16.psf.gz", R_OK) == 0 else {
      print("SKIPPED: console-setup fonts are not installed")
      return
    }
    func terminus(_ height: Int) -> Int? {
      DisplayFont.first(of: DisplayFont.consoleFontPaths(forHeight: height)).bitmapFont?.height
    }
    #expect(terminus(480) == 16)
    #expect(terminus(1080) == 32)
    #expect(throws: FontError.self) { try DisplayFont.load(path: "/nonexistent.psf") }
  }

  @Test func withoutFontDejaVuComesFirstThenTerminusForTheHeight() {
    let dejaVu = [
      "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    ]
    #expect(
      DisplayFont.defaultPaths(forHeight: 480)
        == dejaVu + [
          "/usr/share/consolefonts/Lat15-TerminusBold16.psf.gz",
          "/usr/share/consolefonts/Lat15-Terminus16.psf.gz",
        ])
    #expect(
      DisplayFont.defaultPaths(forHeight: 1080)
        == dejaVu + [
          "/usr/share/consolefonts/Lat15-TerminusBold32x16.psf.gz",
          "/usr/share/consolefonts/Lat15-Terminus32x16.psf.gz",
          "/usr/share/consolefonts/Lat15-TerminusBold16.psf.gz",
        ])
  }

  @Test func theFirstFontThatLoadsIsChosenElseTheBuiltInOne() {
    func load(_ path: String) throws -> ScreenFont {
      guard path != "a" else { throw FontError("a: not there") }
      return .bitmap(psf1Font(name: path))
    }
    #expect(DisplayFont.first(of: ["a", "b", "c"], load: load).name == "b")
    #expect(DisplayFont.first(of: ["a"], load: load).name == "builtin")
  }

  @Test func aFontIsToldByItsContentNotItsName() throws {
    let dir = TempDir()
    let psf = dir.write("console.ttf", bytes: psf1Bytes())
    #expect(try DisplayFont.load(path: psf).bitmapFont?.height == 8)
    let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    guard let bytes = try? FileSystem.read(dejaVu) else {
      print("SKIPPED: \(dejaVu) is not installed (fonts-dejavu-core)")
      return
    }
    let ttf = dir.write("font.psf", bytes: bytes)
    let font = try DisplayFont.load(path: ttf)
    #expect(font.bitmapFont == nil)
    #expect(font.name == ttf)
    #expect(DisplayFont.preferred(forHeight: 480).name == dejaVu)
  }

  @Test func aBadFontFileGivesOneLineNamingIt() throws {
    let dir = TempDir()
    for (name, bytes, says) in [
      ("broken.ttf", Array("OTTO and then nothing".utf8), "FreeType cannot open it as a font"),
      ("text.ttf", Array("hello, world\n".utf8), "not a PSF1, PSF2, TrueType or OpenType font"),
    ] {
      let path = dir.write(name, bytes: bytes)
      do {
        _ = try DisplayFont.load(path: path)
        Issue.record("\(name) loaded")
      } catch {
        let line = "\(error)"
        #expect(
          line.hasPrefix(path + ": ") && line.contains(says) && !line.contains("\n"), "\(line)")
      }
    }
  }

  @Test func aBadTrueTypeFontFailsTheStart() throws {
    let dir = TempDir()
    let font = dir.write(
      "bad.ttf", bytes: [0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 9, count: 64))
    let daemon = try RunningDaemon(
      config: "[Display]\nFont=\(font)\n", display: "snapshot:" + dir.file("frames"), dir: dir,
      waitForSocket: false)
    #expect(daemon.waitExit(timeout: 5) == 69)
    #expect(daemon.log.contains("display: \(font): FreeType cannot open it as a font"))
  }
}

/// A PSF1 font of 256 blank 8x8 glyphs.
private func psf1Bytes() -> [UInt8] {
  [0x36, 0x04, 0x00, 8] + [UInt8](repeating: 0, count: 256 * 8)
}

private func psf1Font(name: String) -> BitmapFont {
  BitmapFont(
    name: name, width: 8, height: 8, glyphCount: 256, bitmaps: Array(psf1Bytes().dropFirst(4)),
    map: nil)
}
