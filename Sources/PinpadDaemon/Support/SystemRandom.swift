import PinpadSystem

/// A RandomNumberGenerator over getrandom(2) (scrambled keypad layouts, attempt ids),
/// read 16 values at a time: one system call per eight attempt ids, not two per id.
/// A value waits in this process's memory only until it is handed out, and is zeroed
/// then; copies of the generator (the Session is a value) share one pool, so none is
/// handed out twice.
struct SystemRandom: RandomNumberGenerator {
  private let pool = Pool()

  mutating func next() -> UInt64 { pool.next() }

  /// One thread's (the daemon's loop), like the Session that holds it.
  private final class Pool {
    private static let size = 16
    @exclusivity(unchecked) private var values = [UInt64](repeating: 0, count: size)
    @exclusivity(unchecked) private var index = size

    func next() -> UInt64 {
      if index == Self.size {
        let filled = values.withUnsafeMutableBytes { FileSystem.fillRandom($0) }
        guard filled else { return FileSystem.randomUInt64() }
        index = 0
      }
      let value = values[index]
      values[index] = 0
      index += 1
      return value
    }
  }
}
