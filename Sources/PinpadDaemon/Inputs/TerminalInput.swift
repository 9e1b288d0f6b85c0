import Glibc
import PinpadCore
import PinpadSystem

/// `--input terminal`: keys typed on the controlling terminal, for trying pinpadd
/// without a keypad. Digits, Enter, Backspace and Esc as on a keypad; `*` clears,
/// `.` reveals; Ctrl-C stops the daemon. The terminal is put in raw mode (no echo)
/// and restored on every exit; what was typed before that, or before the first screen,
/// is discarded.
///
/// Keys are read through a descriptor of its own, opened anew on the same terminal and
/// non-blocking: O_NONBLOCK on standard input itself would be shared with standard
/// output (one open file description on a terminal), where the console display writes.
public final class TerminalInput: InputSource {
  public let keypad: String
  public var name: String { "terminal" }
  /// The terminal given (standard input).
  private let terminal: FileDescriptor
  // `reader` and `buffer` are read for every key, from the loop's thread only, one
  // statement at a time: without the run-time exclusivity check (with it, 985 more
  // instructions per code of the closed loop, 2.4 % of 41 700; bench/README.md).
  /// The non-blocking descriptor keys are read from, opened by `start`.
  @exclusivity(unchecked) private var reader: OwnedDescriptor = .none
  private var fd: FileDescriptor { reader.fd }
  private var raw: RawTerminal?
  private var loop: EventLoop?
  /// Where keys are read into (zeroed after each read: they may be digits).
  @exclusivity(unchecked) private var buffer = [UInt8](repeating: 0, count: 256)

  public init(keypad: String, fd: FileDescriptor = .standardInput) {
    self.keypad = keypad
    self.terminal = fd
  }

  public func start(
    loop: EventLoop, deliver: @escaping (_ keypad: String, SourceEvent) -> Void
  ) throws(InputError) {
    let keypad = self.keypad
    let deliver: (SourceEvent) -> Void = { deliver(keypad, $0) }
    guard terminal.isTerminal else {
      throw InputError("--input terminal: standard input is not a terminal")
    }
    do {
      // /proc/self/fd/N opens the terminal device again: a new open file description.
      reader = try OwnedDescriptor.open(
        "/proc/self/fd/\(terminal.rawValue)", O_RDONLY | O_NOCTTY | O_NONBLOCK)
      raw = try RawTerminal(terminal)
      try loop.watch(fd, .readable) { [unowned self] _ in self.readKeys(deliver) }
    } catch {
      raw?.restore()
      reader.close()
      throw InputError("--input terminal: \(error)")
    }
    self.loop = loop
  }

  private func readKeys(_ deliver: (SourceEvent) -> Void) {
    let n: Int
    do { n = try fd.read(into: &buffer) } catch {
      if error == .wouldBlock { return }
      n = 0  // EIO: the terminal hung up
    }
    guard n > 0 else {
      // The terminal went away (closed window, hang-up): nobody can type any more, and a
      // readable-at-EOF descriptor would spin the loop. Stop, as a shell's job would.
      if let loop { loop.unwatch(fd) }
      deliver(.quit)
      return
    }
    let now = Clock.monotonic()
    // One read is one instant: a paste arrives as a burst, as from a scanner.
    TerminalInput.scanKeys(in: buffer[0..<n]) { key in
      guard let key else {
        deliver(.quit)
        return false  // nothing typed after Ctrl-C counts
      }
      // A press alone: a terminal has no key-up, and the session would take a release
      // of a keypad key only as the time it happened, the instant the press just brought.
      deliver(.key(key, value: 1, time: now))
      return true
    }
    for i in 0..<n { buffer[i] = 0 }
  }

  /// The keys in bytes read from a terminal; nil stands for Ctrl-C. Escape sequences
  /// (arrows, function keys) are skipped; a lone Esc is KEY_ESC.
  public static func keys(in bytes: ArraySlice<UInt8>) -> [KeyCode?] {
    var keys: [KeyCode?] = []
    scanKeys(in: bytes) { key in
      keys.append(key)
      return true
    }
    return keys
  }

  /// `keys(in:)` one key at a time, with no array: `body` returns false to stop.
  static func scanKeys(in bytes: ArraySlice<UInt8>, _ body: (KeyCode?) -> Bool) {
    var i = bytes.startIndex
    while i < bytes.endIndex {
      let b = bytes[i]
      i += 1
      let key: KeyCode?
      switch b {
      case 0x30...0x39: key = KeyCode.mainRow(b - 0x30)
      case 0x0D, 0x0A: key = .enter
      case 0x7F, 0x08: key = .backspace
      case 0x03: key = nil
      case UInt8(ascii: "*"): key = .kpAsterisk
      case UInt8(ascii: "."): key = .kpDot
      case 0x1B:
        if i < bytes.endIndex, bytes[i] == UInt8(ascii: "[") || bytes[i] == UInt8(ascii: "O") {
          // CSI/SS3 sequence: parameters, then a final byte 0x40...0x7E.
          i += 1
          while i < bytes.endIndex, !(0x40...0x7E).contains(bytes[i]) { i += 1 }
          i = min(i + 1, bytes.endIndex)
          continue
        } else {
          key = .esc
        }
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
        let letter = String(UnicodeScalar(b)).uppercased()
        key = KeyCode(name: "KEY_" + letter)
      case UInt8(ascii: " "): key = KeyCode(name: "KEY_SPACE")
      default: key = KeyCode(name: "KEY_UNKNOWN") ?? KeyCode(240)
      }
      guard body(key) else { return }
    }
  }

  /// Drops what was typed but not read yet (type-ahead before the daemon was ready).
  public func discardTypeAhead() { raw?.discardInput() }

  public func close() {
    if let loop { loop.unwatch(fd) }
    loop = nil
    reader.close()
    raw?.restore()
    raw = nil
  }
}
