import Glibc

/// A terminal in raw mode: keys arrive one by one, unechoed; restored by `restore()`.
public final class RawTerminal {
  public let fd: FileDescriptor
  private var saved = termios()
  private var active = false

  /// tcgetattr + cfmakeraw-like settings, keeping output processing (ISIG off too:
  /// Ctrl-C arrives as a byte, the daemon maps it to a clean shutdown).
  public init(_ fd: FileDescriptor) throws(Errno) {
    self.fd = fd
    _ = try syscall { tcgetattr(fd.rawValue, &saved) }
    var raw = saved
    raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
    raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
    raw.c_cflag |= tcflag_t(CS8)
    // TCSAFLUSH: whatever was typed before (type-ahead, echoed or not) is discarded.
    _ = try syscall { tcsetattr(fd.rawValue, TCSAFLUSH, &raw) }
    active = true
  }

  /// tcflush(TCIFLUSH): drops what was typed and not read yet.
  public func discardInput() {
    _ = tcflush(fd.rawValue, TCIFLUSH)
  }

  /// Puts back the settings found at start. Safe to call more than once.
  public func restore() {
    guard active else { return }
    active = false
    _ = tcsetattr(fd.rawValue, TCSANOW, &saved)
  }

  deinit { restore() }
}

extension FileDescriptor {
  /// The terminal's width in columns (TIOCGWINSZ); nil when not a terminal or unknown.
  public var terminalColumns: Int? {
    var size = winsize()
    guard ioctl(rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// True when both descriptors are the same terminal device (fstat's st_rdev).
  public func isSameTerminal(as other: FileDescriptor) -> Bool {
    guard isTerminal, other.isTerminal else { return false }
    var a = stat()
    var b = stat()
    guard fstat(rawValue, &a) == 0, fstat(other.rawValue, &b) == 0 else { return false }
    return a.st_rdev == b.st_rdev
  }
}
