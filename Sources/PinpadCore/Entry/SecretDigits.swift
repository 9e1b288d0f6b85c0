/// The one buffer that holds the digits of a code while it is typed and until it is sent.
///
/// A class with a fixed allocation, so the digits are never copied by Swift's
/// copy-on-write growth and can be zeroed in place: `wipe()` and `deinit` overwrite
/// every byte. It has no `description` that shows digits.
public final class SecretDigits: @unchecked Sendable, CustomStringConvertible {
  public static let capacity = 32
  /// Called with every buffer that will hold digits, before any digit is written: the
  /// daemon sets it at start to lock those pages in memory (mlock), so digits are never
  /// swapped out. The core cannot call the kernel itself. Set once, before any thread.
  @exclusivity(unchecked) nonisolated(unsafe) public static var lockPages:
    ((UnsafeMutableRawPointer, Int) -> Void)? = nil
  private let storage: UnsafeMutablePointer<UInt8>
  /// Without the run-time exclusivity check (read for every digit): like the digits, it
  /// is one owner's at a time, which never holds another access open while calling in.
  @exclusivity(unchecked) public private(set) var count = 0

  public init() {
    storage = .allocate(capacity: SecretDigits.capacity)
    storage.initialize(repeating: 0, count: SecretDigits.capacity)
    SecretDigits.lockPages?(storage, SecretDigits.capacity)
  }
  deinit {
    wipe()
    storage.deallocate()
  }

  public var isEmpty: Bool { count == 0 }
  public var isFull: Bool { count == SecretDigits.capacity }

  /// Appends a digit 0...9; ignored when full.
  public func append(_ digit: UInt8) {
    precondition(digit < 10, "not a digit")
    guard count < SecretDigits.capacity else { return }
    storage[count] = digit
    count += 1
  }

  /// Removes the last digit and zeroes its byte.
  public func removeLast() {
    guard count > 0 else { return }
    count -= 1
    storage[count] = 0
  }

  /// Zeroes every byte and empties the buffer.
  public func wipe() {
    // Plain stores through the pointer (Swift has no volatile). The memory is shared
    // with the allocator, so today's optimiser keeps them; nothing guarantees it.
    for i in 0..<SecretDigits.capacity { storage[i] = 0 }
    count = 0
  }

  public subscript(index: Int) -> UInt8 {
    precondition(index >= 0 && index < count)
    return storage[index]
  }

  /// Moves the digits into a new buffer and wipes this one.
  public func take() -> SecretDigits {
    let other = SecretDigits()
    for i in 0..<count { other.append(storage[i]) }
    wipe()
    return other
  }

  /// Calls `body` with the digits as ASCII bytes `"0"...`"9"` in a temporary buffer
  /// that is zeroed before this returns.
  public func withASCII<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    let tmp = UnsafeMutablePointer<UInt8>.allocate(capacity: SecretDigits.capacity)
    SecretDigits.lockPages?(tmp, SecretDigits.capacity)
    defer {
      for i in 0..<SecretDigits.capacity { tmp[i] = 0 }
      tmp.deallocate()
    }
    for i in 0..<count { tmp[i] = 0x30 + storage[i] }
    return try body(UnsafeBufferPointer(start: tmp, count: count))
  }

  /// Appends the digits as ASCII `"0"...`"9"` to `buffer`, one byte at a time, with no
  /// buffer in between: the caller's buffer (locked, with room reserved) is the only copy.
  public func appendASCII(to buffer: inout [UInt8]) {
    for i in 0..<count { buffer.append(0x30 + storage[i]) }
  }

  /// Never shows a digit.
  public var description: String { "SecretDigits(count: \(count))" }
}
