import CPinpadShim
import Glibc

/// The VT ioctls a `VirtualTerminal` makes, so tests can play the kernel.
public protocol VirtualTerminalDriver: AnyObject {
  /// KDGETMODE / KDSETMODE (KD_TEXT, KD_GRAPHICS).
  func displayMode() throws -> Int32
  func setDisplayMode(_ mode: Int32) throws
  /// KDGKBMODE / KDSKBMODE (K_OFF, K_XLATE, K_UNICODE ...).
  func keyboardMode() throws -> Int32
  func setKeyboardMode(_ mode: Int32) throws
  /// VT_GETMODE / VT_SETMODE.
  func switchMode() throws -> vt_mode
  func setSwitchMode(_ mode: vt_mode) throws
  /// VT_RELDISP: 1 allows a switch away, VT_ACKACQ acknowledges getting the VT back.
  func releaseDisplay(_ value: Int32) throws
  func close()
}

/// The real driver: ioctls on an open tty device.
public final class LinuxVirtualTerminalDriver: VirtualTerminalDriver {
  public let path: String
  private var device: OwnedDescriptor
  private var fd: Int32 { device.fd.rawValue }

  /// Opens `path` (e.g. /dev/tty1); nil opens the active VT found through /dev/tty0.
  /// Write-only: nothing is read from a VT, only ioctls are made (which need
  /// CAP_SYS_TTY_CONFIG or the VT as controlling terminal, not read access), and VTs
  /// are `crw--w---- root tty`, so the tty group that pinpadd.service runs with may
  /// open them for writing only.
  public init(path: String? = nil) throws {
    var device = path ?? ""
    if path == nil {
      let console = OwnedDescriptor(
        taking: try framebufferCall("cannot open /dev/tty0") {
          Glibc.open("/dev/tty0", O_WRONLY | O_CLOEXEC | O_NOCTTY)
        })
      var state = vt_stat()
      let fd = console.fd.rawValue
      _ = try framebufferCall("VT_GETSTATE on /dev/tty0") {
        pinpad_ioctl_pointer(fd, PINPAD_VT_GETSTATE, &state)
      }
      device = "/dev/tty\(state.v_active)"
    }
    self.path = device
    self.device = OwnedDescriptor(
      taking: try framebufferCall("cannot open \(device)") {
        Glibc.open(device, O_WRONLY | O_CLOEXEC | O_NOCTTY)
      })
  }

  private func value(_ name: String, _ request: UInt, _ value: UInt) throws {
    let fd = fd
    _ = try framebufferCall("\(name) on \(path)") { pinpad_ioctl_value(fd, request, value) }
  }

  private func query(_ name: String, _ request: UInt) throws -> Int32 {
    var result: Int32 = 0
    let fd = fd
    _ = try framebufferCall("\(name) on \(path)") { pinpad_ioctl_pointer(fd, request, &result) }
    return result
  }

  public func displayMode() throws -> Int32 { try query("KDGETMODE", PINPAD_KDGETMODE) }
  public func setDisplayMode(_ mode: Int32) throws {
    try value("KDSETMODE", PINPAD_KDSETMODE, UInt(mode))
  }
  public func keyboardMode() throws -> Int32 { try query("KDGKBMODE", PINPAD_KDGKBMODE) }
  public func setKeyboardMode(_ mode: Int32) throws {
    try value("KDSKBMODE", PINPAD_KDSKBMODE, UInt(mode))
  }
  public func switchMode() throws -> vt_mode {
    var mode = vt_mode()
    let fd = fd
    _ = try framebufferCall("VT_GETMODE on \(path)") {
      pinpad_ioctl_pointer(fd, PINPAD_VT_GETMODE, &mode)
    }
    return mode
  }
  public func setSwitchMode(_ mode: vt_mode) throws {
    var mode = mode
    let fd = fd
    _ = try framebufferCall("VT_SETMODE on \(path)") {
      pinpad_ioctl_pointer(fd, PINPAD_VT_SETMODE, &mode)
    }
  }
  public func releaseDisplay(_ value: Int32) throws {
    try self.value("VT_RELDISP", PINPAD_VT_RELDISP, UInt(bitPattern: Int(value)))
  }
  public func close() { device.close() }
}

/// Holds a virtual terminal for a graphical screen: graphics mode (the kernel stops
/// drawing its text console and cursor), keyboard off (keys typed there reach no shell),
/// and process-controlled switching (we are told by a signal when the user switches
/// away or back). `restore()` gives back exactly what was there before.
public final class VirtualTerminal {
  public let releaseSignal: Int32
  public let acquireSignal: Int32
  private let driver: VirtualTerminalDriver
  private var saved: (display: Int32, keyboard: Int32, switching: vt_mode)?

  public init(
    driver: VirtualTerminalDriver, releaseSignal: Int32 = SIGUSR1, acquireSignal: Int32 = SIGUSR2
  ) {
    self.driver = driver
    self.releaseSignal = releaseSignal
    self.acquireSignal = acquireSignal
  }

  public var isTaken: Bool { saved != nil }

  /// Switches to graphics, keyboard off, VT_PROCESS. On a failure part way, undoes what
  /// was done and throws.
  public func take() throws {
    guard saved == nil else { return }
    let display = try driver.displayMode()
    let keyboard = try driver.keyboardMode()
    let switching = try driver.switchMode()
    saved = (display, keyboard, switching)
    do {
      try driver.setDisplayMode(PINPAD_KD_GRAPHICS)
      try driver.setKeyboardMode(PINPAD_K_OFF)
      var mode = vt_mode()
      mode.mode = CChar(truncatingIfNeeded: PINPAD_VT_PROCESS)
      mode.relsig = Int16(truncatingIfNeeded: releaseSignal)
      mode.acqsig = Int16(truncatingIfNeeded: acquireSignal)
      try driver.setSwitchMode(mode)
    } catch {
      restore()
      throw error
    }
  }

  /// Lets the kernel switch away (answer to the release signal).
  public func allowRelease() throws { try driver.releaseDisplay(1) }

  /// Acknowledges getting the VT back (answer to the acquire signal).
  public func acknowledgeAcquire() throws { try driver.releaseDisplay(PINPAD_VT_ACKACQ) }

  /// Puts back the switching, keyboard and display modes found by `take()`, each
  /// attempted even when another fails. Safe to call more than once.
  public func restore() {
    guard let saved else { return }
    self.saved = nil
    var switching = saved.switching
    if Int32(switching.mode) == PINPAD_VT_PROCESS {
      switching.mode = CChar(truncatingIfNeeded: PINPAD_VT_AUTO)
    }
    try? driver.setSwitchMode(switching)
    try? driver.setKeyboardMode(saved.keyboard)
    try? driver.setDisplayMode(saved.display)
  }

  /// Restores and closes the terminal.
  public func close() {
    restore()
    driver.close()
  }
}
