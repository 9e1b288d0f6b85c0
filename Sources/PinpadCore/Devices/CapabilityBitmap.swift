/// An evdev capability bitmap as sysfs prints it (`/sys/class/input/inputN/capabilities/key`):
/// hex words of 64 bits separated by spaces, most significant word first, leading zero
/// words left out, e.g. `"1000000000007 ff9f207ac14057ff febeffdfffefffff fffffffffffffffe"`.
///
/// Reading capabilities from sysfs lets `--list-devices` classify devices without
/// permission to open their nodes.
public struct CapabilityBitmap: Equatable, Sendable {
  /// Least significant word first.
  private var words: [UInt64]

  /// nil when the text is not such a bitmap.
  public init?(sysfs text: String) {
    let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    var words: [UInt64] = []
    for part in parts.reversed() {
      guard let word = UInt64(part, radix: 16) else { return nil }
      words.append(word)
    }
    self.words = words
  }

  public init(bits: [Int]) {
    words = []
    for bit in bits { insert(bit) }
  }

  public func contains(_ bit: Int) -> Bool {
    let index = bit / 64
    return bit >= 0 && index < words.count && words[index] & (1 << UInt64(bit % 64)) != 0
  }

  public mutating func insert(_ bit: Int) {
    let index = bit / 64
    while words.count <= index { words.append(0) }
    words[index] |= 1 << UInt64(bit % 64)
  }
}

extension DeviceCapabilities {
  /// `KEY_1`...`KEY_0` and `KEY_KP7`...`KEY_KP0`.
  public static let digitKeyCodes: [Int] = Array(2...11) + [71, 72, 73, 75, 76, 77, 79, 80, 81, 82]

  /// Classifies a device from its key, absolute-axis and relative-axis bitmaps.
  public init(keys: CapabilityBitmap, abs: CapabilityBitmap, rel: CapabilityBitmap) {
    let clicks = keys.contains(Int(EvdevCode.btnTouch)) || keys.contains(Int(EvdevCode.btnLeft))
    self.init(
      hasDigitKeys: Self.digitKeyCodes.contains(where: keys.contains),
      hasTouch: ((abs.contains(Int(EvdevCode.absX)) && abs.contains(Int(EvdevCode.absY)))
        || (abs.contains(Int(EvdevCode.absMTPositionX))
          && abs.contains(Int(EvdevCode.absMTPositionY))))
        && clicks,
      hasPointer: rel.contains(Int(EvdevCode.relX)) && rel.contains(Int(EvdevCode.relY))
        && keys.contains(Int(EvdevCode.btnLeft)))
  }
}
