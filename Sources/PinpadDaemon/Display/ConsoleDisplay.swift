import Glibc
import PinpadCore
import PinpadSystem

/// `--display console[:TTY]`: the screen as text on the current terminal or a VT.
public final class ConsoleDisplay: Display {
  private let fd: FileDescriptor
  private let ownsDescriptor: Bool
  private var last: String? = nil
  private var closed = false

  /// Draws on `tty` (a path such as /dev/tty1), or standard output when nil.
  public init(tty: String?) throws(SystemError) {
    if let tty {
      do { fd = try FileDescriptor.open(tty, O_WRONLY | O_NOCTTY) } catch {
        throw SystemError("cannot open \(tty)", error)
      }
      ownsDescriptor = true
    } else {
      fd = .standardOutput
      ownsDescriptor = false
    }
    write("\u{1B}[?25l")  // hide the terminal's own cursor
  }

  public func show(_ model: ScreenModel) {
    let frame = ConsoleRenderer.frame(model, columns: columns())
    guard frame != last, !closed else { return }
    last = frame
    write(frame)
  }

  public func close() {
    guard !closed else { return }
    closed = true
    write("\u{1B}[H\u{1B}[2J\u{1B}[?25h")
    if ownsDescriptor { fd.close() }
  }

  /// The terminal's width (TIOCGWINSZ), 80 when it does not say.
  private func columns() -> Int {
    var size = winsize()
    guard ioctl(fd.rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  private func write(_ text: String) { try? fd.writeAll(Array(text.utf8)) }
}
