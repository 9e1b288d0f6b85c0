import CPinpadShim
import Glibc
import Testing

@testable import PinpadSystem

/// Plays the kernel's FBIOGET_*SCREENINFO for a regular file standing in for /dev/fbN.
struct FakeScreenInfo: FramebufferQueries {
  var info: FramebufferInfo
  func info(of fd: Int32, path: String) throws -> FramebufferInfo { info }
}

/// A scratch file of `size` bytes, removed by `remove()`.
func scratchFile(size: Int) -> String {
  var template = Array("/tmp/pinpadd-fb-XXXXXX".utf8CString)
  var file = OwnedDescriptor(
    taking: template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) })
  let fd = file.fd.rawValue
  precondition(fd >= 0)
  ftruncate(fd, off_t(size))
  file.close()
  return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Records the VT ioctls and can be told to fail one.
final class FakeVirtualTerminal: VirtualTerminalDriver {
  var display: Int32 = PINPAD_KD_TEXT
  var keyboard: Int32 = 3  // K_UNICODE
  var switching = vt_mode()
  var calls: [String] = []
  var failing: String? = nil
  var closed = false

  private func step(_ name: String) throws {
    calls.append(name)
    if failing == name { throw SystemError(name, Errno(EIO)) }
  }
  func displayMode() throws -> Int32 { display }
  func setDisplayMode(_ mode: Int32) throws {
    try step("KDSETMODE \(mode)")
    display = mode
  }
  func keyboardMode() throws -> Int32 { keyboard }
  func setKeyboardMode(_ mode: Int32) throws {
    try step("KDSKBMODE \(mode)")
    keyboard = mode
  }
  func switchMode() throws -> vt_mode { switching }
  func setSwitchMode(_ mode: vt_mode) throws {
    try step("VT_SETMODE \(mode.mode)")
    switching = mode
  }
  func releaseDisplay(_ value: Int32) throws { try step("VT_RELDISP \(value)") }
  func close() { closed = true }
}

@Suite struct FramebufferTests {
  static let info = FramebufferInfo(
    name: "fake", width: 64, height: 48, xOffset: 2, yOffset: 3, bitsPerPixel: 16,
    red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6),
    blue: .init(offset: 0, length: 5),
    lineLength: 160, memoryLength: 160 * 60)

  @Test func mapsAFileStandingInForTheDevice() throws {
    let path = scratchFile(size: Self.info.memoryLength)
    defer { unlink(path) }
    let fb = try Framebuffer(path: path, queries: FakeScreenInfo(info: Self.info))
    #expect(fb.info == Self.info)
    let memory = try #require(fb.memory)
    memory.storeBytes(of: 0xBEEF, toByteOffset: 0, as: UInt16.self)
    fb.clear(byte: 0x11)
    fb.close()
    #expect(fb.memory == nil)
    fb.close()
    var file = OwnedDescriptor(taking: open(path, O_RDONLY))
    let fd = file.fd.rawValue
    var bytes = [UInt8](repeating: 0, count: Self.info.memoryLength)
    _ = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
    file.close()
    #expect(bytes[0] == 0xEF && bytes[1] == 0xBE)  // row 0 is above the visible area
    #expect(bytes[3 * 160] == 0x11 && bytes[50 * 160 + 159] == 0x11)
    #expect(bytes[51 * 160] == 0)
  }

  @Test func refusesAVisibleAreaLargerThanItsMemory() {
    var info = Self.info
    info.memoryLength = 160 * 40
    let path = scratchFile(size: info.memoryLength)
    defer { unlink(path) }
    #expect(throws: SystemError.self) {
      try Framebuffer(path: path, queries: FakeScreenInfo(info: info))
    }
  }

  @Test func refusesPaletteModes() {
    var info = Self.info
    info.bitsPerPixel = 8
    let path = scratchFile(size: info.memoryLength)
    defer { unlink(path) }
    #expect(throws: SystemError.self) {
      try Framebuffer(path: path, queries: FakeScreenInfo(info: info))
    }
  }

  @Test func aMissingDeviceIsAClearError() {
    do {
      _ = try Framebuffer(path: "/nonexistent/fb9")
      Issue.record("opened a missing device")
    } catch let error as SystemError {
      #expect(error.description == "cannot open /nonexistent/fb9: No such file or directory")
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test func aRegularFileIsNotAFramebuffer() {
    let path = scratchFile(size: 4096)
    defer { unlink(path) }
    #expect(throws: SystemError.self) { try Framebuffer(path: path) }
  }

  @Test func takingTheTerminalSetsGraphicsKeyboardOffAndProcessSwitching() throws {
    let driver = FakeVirtualTerminal()
    let vt = VirtualTerminal(driver: driver)
    try vt.take()
    #expect(driver.display == PINPAD_KD_GRAPHICS)
    #expect(driver.keyboard == PINPAD_K_OFF)
    #expect(Int32(driver.switching.mode) == PINPAD_VT_PROCESS)
    #expect(Int32(driver.switching.relsig) == SIGUSR1 && Int32(driver.switching.acqsig) == SIGUSR2)
    try vt.allowRelease()
    try vt.acknowledgeAcquire()
    #expect(driver.calls.suffix(2) == ["VT_RELDISP 1", "VT_RELDISP \(PINPAD_VT_ACKACQ)"])
    vt.close()
    #expect(driver.display == PINPAD_KD_TEXT)
    #expect(driver.keyboard == 3)
    #expect(Int32(driver.switching.mode) == PINPAD_VT_AUTO)
    #expect(driver.closed)
    let count = driver.calls.count
    vt.close()
    #expect(driver.calls.count == count)
  }

  @Test func aFailedTakeGivesBackWhatItChanged() {
    let driver = FakeVirtualTerminal()
    driver.failing = "VT_SETMODE \(PINPAD_VT_PROCESS)"
    let vt = VirtualTerminal(driver: driver)
    #expect(throws: SystemError.self) { try vt.take() }
    #expect(driver.display == PINPAD_KD_TEXT)
    #expect(driver.keyboard == 3)
    #expect(!vt.isTaken)
  }
}
