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
    _ = try syscall { tcsetattr(fd.rawValue, TCSANOW, &raw) }
    active = true
  }

  /// Puts back the settings found at start. Safe to call more than once.
  public func restore() {
    guard active else { return }
    active = false
    _ = tcsetattr(fd.rawValue, TCSANOW, &saved)
  }

  deinit { restore() }
}
