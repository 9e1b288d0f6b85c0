import Glibc
import PinpadCore
import PinpadDaemon
import PinpadSystem

/// `pinpadctl serve` and `pinpadctl hash`: the reference controller (SPEC §4.4).
///
/// `serve` answers every `code` with `granted` when crypt(3) of the code matches any
/// hash in the codes file, else `denied`. It re-reads the file when it changes (checked
/// before each code), and when the daemon goes away (restart, upgrade) it reconnects,
/// retrying every second, so a door keeps working across daemon restarts; only a
/// `forbidden` answer, which retrying cannot fix, ends it. The code's bytes are checked
/// in place in one fixed buffer and zeroed; no code is ever printed.
enum ControllerService {
  static let retryMicroseconds: UInt32 = 1_000_000

  /// Unblocks every signal. A client started from a thread that blocks signals (a
  /// test runner, a thread pool) inherits that mask and would otherwise ignore SIGTERM.
  static func unblockSignals() {
    var none = sigset_t()
    sigemptyset(&none)
    _ = sigprocmask(SIG_SETMASK, &none, nil)
  }

  static func main(socketPath: String, arguments: [String]) throws -> Int32 {
    var words = Arguments(arguments)
    var path: String? = nil
    var mqtt = false
    var filter: String? = nil
    var configPath: String? = nil
    while let word = words.next() {
      switch word.name {
      case "--codes": path = try words.value(of: word)
      case "--mqtt":
        try words.flag(word)
        mqtt = true
      case "--topics": filter = try words.value(of: word)
      case "--config": configPath = try words.value(of: word)
      default:
        throw UsageError(
          "serve --codes FILE [--mqtt [--topics FILTER] [--config FILE]] (unexpected \(word.text))")
      }
    }
    if !mqtt, filter != nil || configPath != nil {
      throw UsageError("serve: --topics and --config go with --mqtt")
    }
    guard let path, !path.isEmpty else { throw UsageError("serve needs --codes FILE") }
    var codes = CodesFile(path: path)
    let problems = codes.reloadIfChanged() ?? []
    for problem in problems where problem != codes.refusal { ControlMain.printError(problem) }
    guard FileSystem.exists(path) else {
      throw ControlError("\(path): cannot read the codes file")
    }
    if let refusal = codes.refusal { throw CodesFileRefused(description: refusal) }
    if codes.entries.isEmpty {
      ControlMain.printError("pinpadctl serve: \(path) holds no usable hash; every code is denied")
    }
    let hasher = PasswordHasher()
    if mqtt {
      return try FleetController.run(
        codes: codes, hasher: hasher, filter: filter ?? FleetController.defaultFilter,
        configPath: configPath ?? "/etc/pinpadd/pinpadd.conf", configGiven: configPath != nil)
    }
    var said = false
    while true {
      let fd: FileDescriptor
      do { fd = try UnixSocket.connect(path: socketPath) } catch {
        if !said {
          ControlMain.printError(
            "pinpadctl serve: cannot connect to \(socketPath): \(error); retrying every second")
          said = true
        }
        usleep(retryMicroseconds)
        continue
      }
      said = false
      let reason = serve(connection: fd, codes: &codes, hasher: hasher, socketPath: socketPath)
      fd.close()
      if case .refused(let why) = reason {
        throw ControlError("\(socketPath): \(why)")
      }
      ControlMain.printError("pinpadctl serve: disconnected from \(socketPath); reconnecting")
      usleep(retryMicroseconds)
    }
  }

  enum EndOfService {
    case lost
    case refused(String)
  }

  /// One connection: the greeting, then every line until the daemon goes away.
  static func serve(
    connection fd: FileDescriptor, codes: inout CodesFile, hasher: PasswordHasher,
    socketPath: String
  ) -> EndOfService {
    let reader = SecretLineReader(fd: fd)
    var greeted = false
    while true {
      let line: UnsafeBufferPointer<UInt8>
      do { line = try reader.nextLine() } catch {
        return .lost
      }
      guard let fields = JSONFields(line) else { continue }
      let type = fields.text("type", in: line)
      if !greeted {
        if type == "error" {
          return .refused(fields.text("reason", in: line) ?? "refused")
        }
        greeted = true
        ControlMain.printError("pinpadctl serve: connected to \(socketPath)")
        continue
      }
      switch type {
      case "code":
        guard let id = fields.text("id", in: line), let range = fields.range(of: "code") else {
          continue
        }
        let keypad = fields.text("keypad", in: line) ?? "?"
        let mutableLine = UnsafeMutableBufferPointer(mutating: line)
        let match = check(
          UnsafeMutableBufferPointer(rebasing: mutableLine[range]), codes: &codes, hasher: hasher)
        let result = match == nil ? "denied" : "granted"
        let answer = JSONValue.object([
          ("type", .string("verdict")), ("id", .string(id)), ("result", .string(result)),
        ])
        do { try fd.writeAll(Array((answer.serialized + "\n").utf8)) } catch {
          return .lost
        }
        ControlMain.printError(
          "pinpadctl serve: attempt \(id) on keypad \(keypad): \(result)"
            + (match.map { " (\($0))" } ?? ""))
      case "error":
        ControlMain.printError(
          "pinpadctl serve: the daemon says: \(fields.text("reason", in: line) ?? "error")")
      default:
        continue
      }
    }
  }

  /// The name of the first entry whose hash the code matches, nil when none does.
  /// Zeroes `code` (in the line buffer) and its NUL-terminated copy before returning.
  static func check(
    _ code: UnsafeMutableBufferPointer<UInt8>, codes: inout CodesFile, hasher: PasswordHasher
  ) -> String? {
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: SecretDigits.capacity + 1)
    copy.initialize(repeating: 0, count: SecretDigits.capacity + 1)
    defer {
      explicitZero(copy, SecretDigits.capacity + 1)
      copy.deallocate()
      if let base = code.baseAddress { explicitZero(base, code.count) }
    }
    // Only 1...32 ASCII digits can be a code; anything else is denied unchecked.
    guard (1...SecretDigits.capacity).contains(code.count),
      code.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    for i in 0..<code.count { copy[i] = CChar(bitPattern: code[i]) }
    for problem in codes.reloadIfChanged() ?? [] { ControlMain.printError(problem) }
    for entry in codes.entries where hasher.matches(code: copy, hash: entry.hash) {
      return entry.name
    }
    return nil
  }

  // MARK: hash

  /// `pinpadctl hash [NAME]`: reads a code (from the terminal without echo, twice; or
  /// one line of standard input when it is not a terminal) and prints `NAME:HASH`.
  static func hashMain(arguments: [String]) throws -> Int32 {
    guard arguments.count <= 1 else { throw UsageError("hash [NAME]") }
    let name = arguments.first ?? "code"
    guard !name.isEmpty, !name.contains(where: { $0 == ":" || $0.isWhitespace }) else {
      throw UsageError("hash: NAME must not be empty or hold a colon or a space")
    }
    let code = SecretInput()
    defer { code.wipe() }
    if FileDescriptor.standardInput.isTerminal {
      let again = SecretInput()
      defer { again.wipe() }
      guard code.readFromTerminal(prompt: "Code: "), again.readFromTerminal(prompt: "Again: ")
      else {
        ControlMain.printError("pinpadctl hash: cancelled")
        return 1
      }
      guard code.count == again.count, constantTimeEqual(code.bytes, code.count, again.array())
      else {
        ControlMain.printError("pinpadctl hash: the two codes differ")
        return 1
      }
    } else {
      code.readLine(from: .standardInput)
    }
    guard code.isValidCode else {
      ControlMain.printError("pinpadctl hash: a code is 1 to \(SecretDigits.capacity) digits")
      return 1
    }
    guard let hash = PasswordHasher().makeHash(code: code.cString) else {
      ControlMain.printError("pinpadctl hash: libcrypt could not make a yescrypt hash")
      return 1
    }
    ControlMain.printLine("\(name):\(hash)")
    return 0
  }
}

/// A code typed by a person, in one fixed NUL-terminated buffer that is zeroed by `wipe()`.
final class SecretInput {
  static let capacity = 64
  let bytes: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private var overflow = false

  init() {
    bytes = .allocate(capacity: SecretInput.capacity + 1)
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
      let n = read(fd.rawValue, &byte, 1)
      if n < 0, errno == EINTR { continue }
      if n <= 0 || byte == 0x0A { break }
      if byte != 0x0D { append(byte) }
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
      let n = read(fd, &byte, 1)
      if n < 0, errno == EINTR { continue }
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

/// `serve` will not start on a codes file others may read or write: exit 78.
struct CodesFileRefused: Error, CustomStringConvertible {
  var description: String
}
