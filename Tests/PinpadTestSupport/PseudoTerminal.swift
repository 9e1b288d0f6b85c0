import Foundation
import Glibc
import PinpadSystem

/// A pseudo-terminal pair (posix_openpt): a program runs on the follower side (as its
/// standard streams, or a console display opened by `followerPath`), the test types
/// into and reads the leader side.
public final class PseudoTerminal {
  private let leaderSide: OwnedDescriptor
  public var leader: Int32 { leaderSide.fd.rawValue }
  /// The follower's device, /dev/pts/N.
  public let followerPath: String
  /// The test's own copy of the follower (for `start`), nil once dropped.
  public private(set) var follower: FileHandle?

  /// `columns`: a width to set (24 rows; else the kernel's 0 x 0). `openFollower`:
  /// false for a terminal that a program opens itself by `followerPath`; the leader is
  /// then non-blocking.
  public init(columns: UInt16? = nil, openFollower: Bool = true) throws {
    // posix_openpt and friends need _XOPEN_SOURCE, which the Glibc module lacks.
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    func symbol<T>(_ name: String, as: T.Type) -> T {
      unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)!, to: T.self)
    }
    leaderSide = OwnedDescriptor(taking: symbol("posix_openpt", as: Open.self)(O_RDWR | O_NOCTTY))
    let leader = leaderSide.fd.rawValue
    guard leader >= 0, symbol("grantpt", as: Open.self)(leader) == 0,
      symbol("unlockpt", as: Open.self)(leader) == 0,
      let name = symbol("ptsname", as: Name.self)(leader)
    else { throw ClientError("no pseudo-terminal") }
    followerPath = String(cString: name)
    if let columns {
      var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
      _ = ioctl(leader, UInt(TIOCSWINSZ), &size)
    }
    if openFollower {
      let fd = open(followerPath, O_RDWR | O_NOCTTY)
      guard fd >= 0 else { throw ClientError("cannot open \(followerPath)") }
      follower = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    } else {
      _ = fcntl(leader, F_SETFL, fcntl(leader, F_GETFL) | O_NONBLOCK)
    }
  }

  deinit { closeFollower() }

  /// Drops the test's copy of the follower so reads end when the program exits.
  public func closeFollower() {
    try? follower?.close()
    follower = nil
  }

  /// Starts `program` with this terminal as its standard input, output and error (error
  /// to `stderr` when given), then drops the test's follower. The caller kills it if it
  /// is still running at the end.
  public func start(_ program: String, _ arguments: [String], stderr: FileHandle? = nil) throws
    -> Process
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardInput = follower
    process.standardOutput = follower
    process.standardError = stderr ?? follower
    try process.run()
    closeFollower()
    return process
  }

  /// Writes `text` as if typed.
  public func type(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
  }

  /// Everything the program wrote until it closed the terminal, `stop` held for what
  /// came so far, or `timeout` passed.
  public func readAll(timeout: Double, until stop: (String) -> Bool = { _ in false }) -> String {
    var data: [UInt8] = []
    let end = E2E.now() + timeout
    while E2E.now() < end {
      var pfd = pollfd(fd: leader, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, 50)
      if ready <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let n = read(leader, &chunk, chunk.count)
      if n <= 0 { break }  // EIO: every follower descriptor is closed
      data += chunk[0..<n]
      if stop(String(decoding: data, as: UTF8.self)) { break }
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// Everything written so far, read until nothing more came for `settle` seconds.
  public func readAvailable(settle: Double) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    var quietSince = E2E.now()
    while E2E.now() - quietSince < settle {
      let n = read(leader, &chunk, chunk.count)
      if n > 0 {
        bytes += chunk[0..<n]
        quietSince = E2E.now()
      } else {
        E2E.sleep(0.02)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `text` without ANSI escape sequences (CSI and two-byte ESC sequences).
  public static func strippingEscapes(_ text: String) -> String {
    var out = ""
    var scalars = text.unicodeScalars.makeIterator()
    while let s = scalars.next() {
      guard s == "\u{1B}" else {
        out.unicodeScalars.append(s)
        continue
      }
      guard let kind = scalars.next() else { break }
      if kind == "[" {
        while let c = scalars.next(), !(0x40...0x7E).contains(c.value) {}
      }
    }
    return out
  }
}
