import PinpadCore

/// The daemon's lines (or a code typed for `pinpadctl hash`) in one fixed buffer:
/// allocated once, locked in memory (`SecretDigits.lockPages`, the hook pinpadctl sets
/// to mlock(2) at start) before any byte is read into it, and zeroed as lines are used,
/// so a `code` line's digits never land in a growable array, a String or swap
/// (docs/protocol.md, "Socket: code"). Bounded: a line longer than `capacity` cannot be
/// taken (`isFull` with no line in it), and the reader then ends the connection. Pure:
/// the caller does the reading (`SecretLineReader`).
public final class LockedLineBuffer {
  /// Room for the largest `status` line many times over; a `code` line is under 300
  /// bytes.
  public static let defaultCapacity = 64 * 1024
  public let capacity: Int
  private let buffer: UnsafeMutablePointer<UInt8>
  /// Bytes read and not yet dropped, from the start of the buffer.
  public private(set) var filled = 0
  /// Length of the line handed out by the last `completeLine` and its newline: zeroed
  /// and dropped on the next call.
  private var consumed = 0

  public init(capacity: Int = LockedLineBuffer.defaultCapacity) {
    precondition(capacity > 0)
    self.capacity = capacity
    buffer = .allocate(capacity: capacity)
    SecretDigits.lockPages?(buffer, capacity)
    buffer.initialize(repeating: 0, count: capacity)
  }

  deinit {
    LockedLineBuffer.zero(buffer, capacity)
    buffer.deallocate()
  }

  /// No room left even after the last line handed out is dropped: the line being read
  /// is longer than `capacity`.
  public var isFull: Bool { filled - consumed == capacity }

  /// Hands the free space to `read`, which fills a prefix of it and returns how many
  /// bytes it wrote (0 at end of stream). The last line handed out is zeroed and dropped
  /// first. Returns what `read` returned; 0 without calling it when the buffer is full.
  public func append<E: Error>(_ read: (UnsafeMutableRawBufferPointer) throws(E) -> Int)
    throws(E) -> Int
  {
    dropConsumed()
    guard filled < capacity else { return 0 }
    let n = try read(
      UnsafeMutableRawBufferPointer(start: buffer + filled, count: capacity - filled))
    filled += max(0, min(n, capacity - filled))
    return n
  }

  /// Appends bytes already read elsewhere (at most the free space); how many were taken.
  @discardableResult
  public func append(contentsOf bytes: some Collection<UInt8>) -> Int {
    append { space in
      var n = 0
      for byte in bytes where n < space.count {
        space[n] = byte
        n += 1
      }
      return n
    }
  }

  /// The next complete line, without its newline (the byte after it, for a caller that
  /// writes the line on as it is); valid until the next call on this buffer, which zeroes
  /// it. nil when no complete line is left.
  public func completeLine() -> UnsafeMutableBufferPointer<UInt8>? {
    dropConsumed()
    var newline = 0
    while newline < filled, buffer[newline] != 0x0A { newline += 1 }
    guard newline < filled else { return nil }
    consumed = newline + 1
    return UnsafeMutableBufferPointer(start: buffer, count: newline)
  }

  /// Zeroes and drops the last byte of the line being read (a Backspace typed at a
  /// terminal); nothing when that line is empty.
  public func removeLast() {
    dropConsumed()
    guard filled > 0 else { return }
    filled -= 1
    buffer[filled] = 0
  }

  /// Zeroes every byte and forgets what was read (the connection is gone).
  public func wipe() {
    LockedLineBuffer.zero(buffer, capacity)
    filled = 0
    consumed = 0
  }

  /// The bytes read and not yet dropped, for the tests: copies, so only with test data.
  public var pendingBytesForTests: [UInt8] {
    Array(UnsafeBufferPointer(start: buffer + consumed, count: filled - consumed))
  }

  /// Whether every byte past `filled` is zero, for the tests.
  public var isZeroPastFilledForTests: Bool {
    (filled..<capacity).allSatisfy { buffer[$0] == 0 }
  }

  private func dropConsumed() {
    guard consumed > 0 else { return }
    let rest = filled - consumed
    if rest > 0 {
      // Overlapping ranges: copyMemory moves like memmove(3).
      UnsafeMutableRawPointer(buffer).copyMemory(from: buffer + consumed, byteCount: rest)
    }
    LockedLineBuffer.zero(buffer + rest, filled - rest)
    filled = rest
    consumed = 0
  }

  /// Plain stores through the pointer, as `SecretDigits.wipe` (Swift has no volatile;
  /// the memory outlives the call, so the optimiser keeps them).
  static func zero(_ pointer: UnsafeMutablePointer<UInt8>, _ count: Int) {
    for i in 0..<count { pointer[i] = 0 }
  }
}
