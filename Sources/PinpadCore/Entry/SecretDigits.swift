import Synchronization

/// The one buffer that holds the digits of a code while it is typed and until it is sent.
///
/// A class with a fixed allocation, so the digits are never copied by Swift's
/// copy-on-write growth and can be zeroed in place: `wipe()` and `deinit` overwrite
/// every byte. It has no `description` that shows digits.
public final class SecretDigits: @unchecked Sendable, CustomStringConvertible {
  public static let capacity = 32
  /// Called with every buffer that will hold digits, before any digit is written: the
  /// daemon sets it at start to lock those pages in memory (mlock), so digits are never
  /// swapped out. The core cannot call the kernel itself. Set once, before any thread
  /// and before the first SecretDigits (`SecretSlots` locks a page when it cuts it).
  nonisolated(unsafe) public static var lockPages: ((UnsafeMutableRawPointer, Int) -> Void)? = nil
  private let storage: UnsafeMutablePointer<UInt8>
  /// Without the run-time exclusivity check (read for every digit; with it, 1 800 more
  /// instructions per code of the closed loop, 4.3 % of 41 700, bench/README.md): like
  /// the digits, it is one owner's at a time, which never holds another access open
  /// while calling in. `lockPages`, read when a page is cut, keeps the check.
  @exclusivity(unchecked) public private(set) var count = 0

  public init() {
    storage = SecretSlots.take()
  }
  deinit {
    wipe()
    SecretSlots.give(storage)
  }

  /// The slot itself, for the tests of `SecretSlots`.
  var storageForTests: UnsafeMutablePointer<UInt8> { storage }

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
    let tmp = SecretSlots.take()
    defer {
      for i in 0..<SecretDigits.capacity { tmp[i] = 0 }
      SecretSlots.give(tmp)
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

/// Where every SecretDigits keeps its digits: 32-byte slots cut from 4 KiB pages that
/// are allocated once, locked once (`SecretDigits.lockPages`) and never freed. A slot
/// comes back zeroed (`SecretDigits.deinit` wipes it) and is handed out again, so a
/// code costs no allocation and no mlock(2): `take()` hands one on from each code to
/// the next. The pages are as many as were ever in use at once (a few per keypad, and
/// one per attempt waiting for a verdict, which `AttemptBook` bounds).
enum SecretSlots {
  static let slotBytes = SecretDigits.capacity
  static let pageBytes = 4096
  /// A class held by the Mutex, made at run time (see `Systemd.notifySocket` for why
  /// not a static value).
  private final class Free: @unchecked Sendable {
    var slots: [UnsafeMutablePointer<UInt8>] = []
  }
  private static let free = Mutex(Free())

  /// A zeroed slot of `slotBytes`.
  static func take() -> UnsafeMutablePointer<UInt8> {
    if let slot = free.withLock({ $0.slots.popLast() }) { return slot }
    let page = UnsafeMutableRawPointer.allocate(byteCount: pageBytes, alignment: pageBytes)
    page.initializeMemory(as: UInt8.self, repeating: 0, count: pageBytes)
    SecretDigits.lockPages?(page, pageBytes)
    let first = page.assumingMemoryBound(to: UInt8.self)
    free.withLock { free in
      for offset in stride(from: pageBytes - slotBytes, to: 0, by: -slotBytes) {
        free.slots.append(first + offset)
      }
    }
    return first
  }

  /// Gives back a slot its holder has zeroed.
  static func give(_ slot: UnsafeMutablePointer<UInt8>) {
    free.withLock { $0.slots.append(slot) }
  }
}
