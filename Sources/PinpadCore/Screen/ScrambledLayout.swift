/// Digit orders for the on-screen keypad.
public enum ScrambledLayout {
  /// `KeypadLayout=phone`: 1-9 in rows, 0 at the bottom.
  public static let phone: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]

  /// A uniformly shuffled permutation of 0...9 (for `KeypadLayout=scrambled`, made anew
  /// for every entry so a watcher cannot learn a code from finger positions).
  public static func make(using generator: inout some RandomNumberGenerator) -> [UInt8] {
    var digits: [UInt8] = Array(0...9)
    // Fisher-Yates with the generator's own bounded draws.
    for i in stride(from: digits.count - 1, to: 0, by: -1) {
      let j = Int.random(in: 0...i, using: &generator)
      digits.swapAt(i, j)
    }
    return digits
  }
}
