import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// A code typed by a person, in one fixed NUL-terminated buffer that is zeroed by `wipe()`.
final class SecretInput {
  static let capacity = 64
  let bytes: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private var overflow = false

  init() {
    bytes = .allocate(capacity: SecretInput.capacity + 1)
    ProcessSetup.lockPages(bytes, SecretInput.capacity + 1)
    bytes.initialize(repeating: 0, count: SecretInput.capacity + 1)
  }
  deinit {
    wipe()
    bytes.deallocate()
  }

  func wipe() {
    explicitZero(bytes, SecretInput.capacity + 1)
    count = 0
  }

  var cString: UnsafePointer<CChar> {
    UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self)
  }

  /// A copy for comparing (the caller's array is short-lived; only used for equality).
  func array() -> [UInt8] { Array(UnsafeBufferPointer(start: bytes, count: count)) }

  var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: count) }

  /// The digit values (0...9) the input uses.
  var digitsUsed: Set<UInt8> { Set((0..<count).map { bytes[$0] &- 0x30 }) }

  var isValidCard: Bool { !overflow && CodesLookup.isCard(buffer) }

  var isValidCode: Bool {
    !overflow && (1...SecretDigits.capacity).contains(count)
      && (0..<count).allSatisfy { (0x30...0x39).contains(bytes[$0]) }
  }

  private func append(_ byte: UInt8) {
    guard count < SecretInput.capacity else {
      overflow = true
      return
    }
    bytes[count] = byte
    count += 1
  }

  /// One line (or all input up to EOF) from `fd`, byte by byte so nothing past it is read.
  func readLine(from fd: FileDescriptor) {
    var byte: UInt8 = 0
    while true {
      let n =
        (try? withUnsafeMutableBytes(of: &byte) { (b) throws(Errno) in try fd.read(into: b) }) ?? -1
      if n <= 0 || byte == 0x0A { break }
      if byte != 0x0D { append(byte) }
      // Endless input (/dev/zero) or a line too long: stop; the caller refuses it.
      if overflow { break }
    }
    byte = 0
  }

  /// Reads a line from the terminal on standard input with echo off (termios), handling
  /// Backspace and Ctrl-U itself; false when cancelled (Ctrl-C, Ctrl-D) or unreadable.
  /// The terminal's settings are restored on every path.
  func readFromTerminal(prompt: String) -> Bool {
    let fd = FileDescriptor.standardInput.rawValue
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else { return false }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
    withUnsafeMutableBytes(of: &quiet.c_cc) {
      $0[Int(VMIN)] = 1
      $0[Int(VTIME)] = 0
    }
    guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return false }
    defer {
      _ = tcsetattr(fd, TCSAFLUSH, &saved)
      ControlMain.printError("")
    }
    try? FileDescriptor.standardError.writeAll(Array(prompt.utf8))
    var byte: UInt8 = 0
    defer { byte = 0 }
    while true {
      let n =
        (try? withUnsafeMutableBytes(of: &byte) { (b) throws(Errno) in
          try FileDescriptor(rawValue: fd).read(into: b)
        }) ?? -1
      guard n == 1 else { return false }
      switch byte {
      case 0x0D, 0x0A: return true
      case 0x03, 0x04: return false  // Ctrl-C, Ctrl-D
      case 0x7F, 0x08:
        if count > 0 {
          count -= 1
          bytes[count] = 0
        }
      case 0x15:  // Ctrl-U
        wipe()
      default: append(byte)
      }
    }
  }
}
