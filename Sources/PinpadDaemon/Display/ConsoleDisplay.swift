import Glibc
import PinpadCore
import PinpadScreen
import PinpadSystem

/// `--display console[:TTY]`: the screen as text on the current terminal or a VT.
public final class ConsoleDisplay: Display {
  /// The VT opened for `tty`; owns nothing when drawing on standard output.
  private var device: OwnedDescriptor = .none
  private let fd: FileDescriptor
  private var last: String? = nil
  private var model: ScreenModel? = nil
  private var closed = false
  /// The key-hint line (`TerminalHint`) when keys are typed on this terminal.
  public var hint: String? = nil {
    didSet { redraw() }
  }
  /// The latest log line, when the log shares this terminal (`showStatus`).
  private var status: String? = nil

  /// Draws on `tty` (a path such as /dev/tty1), or standard output when nil.
  public init(tty: String?) throws(SystemError) {
    if let tty {
      do { device = try OwnedDescriptor.open(tty, O_WRONLY | O_NOCTTY) } catch {
        throw SystemError("cannot open \(tty)", error)
      }
      fd = device.fd
    } else {
      fd = .standardOutput
    }
    write("\u{1B}[?25l")  // hide the terminal's own cursor
  }

  public func show(_ model: ScreenModel) {
    self.model = model
    redraw()
  }

  /// True when this display draws on the same terminal as `other` (stdin: keys are
  /// typed here; stderr: the log would be written over the screen).
  public func drawsOn(sameTerminalAs other: FileDescriptor) -> Bool {
    fd.isSameTerminal(as: other)
  }

  /// Shows `line` on the reserved status line at the bottom, in place of the last one:
  /// log lines on the display's terminal go there, never over the entry.
  public func showStatus(_ line: String) {
    status = line
    redraw()
  }

  private func redraw() {
    guard let model, !closed else { return }
    let frame = ConsoleRenderer.frame(
      model, hint: hint, status: status, columns: fd.terminalColumns ?? 80)
    guard frame != last else { return }
    last = frame
    write(frame)
  }

  public func close() {
    guard !closed else { return }
    closed = true
    write("\u{1B}[H\u{1B}[2J\u{1B}[?25h")
    device.close()
  }

  /// The terminal's width (TIOCGWINSZ), 80 when it does not say.
  private func write(_ text: String) { try? fd.writeAll(Array(text.utf8)) }
}
