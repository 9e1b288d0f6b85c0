/// A Linux evdev key code (`KEY_*` / `BTN_*` from linux/input-event-codes.h).
public struct KeyCode: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public init(_ rawValue: UInt16) { self.rawValue = rawValue }

  /// The code for a kernel name such as `KEY_KPENTER`, or nil when the kernel has no such key.
  public init?(name: String) {
    guard let code = KeyCode.codesByName[name] else { return nil }
    self.rawValue = code
  }

  /// The kernel's name for this code (`KEY_ENTER`), or `KEY_<number>` when it has none.
  public var name: String { KeyCode.namesByCode[rawValue] ?? "KEY_\(rawValue)" }
  public var description: String { name }

  public static func < (a: KeyCode, b: KeyCode) -> Bool { a.rawValue < b.rawValue }

  /// The digit this key stands for: `KEY_0`...`KEY_9` and `KEY_KP0`...`KEY_KP9`.
  /// NumLock state never changes this.
  public var digit: UInt8? {
    switch rawValue {
    case 2...10: return UInt8(rawValue - 1)  // KEY_1 = 2 ... KEY_9 = 10
    case 11: return 0  // KEY_0
    case 71...73: return UInt8(rawValue - 71 + 7)  // KEY_KP7 KEY_KP8 KEY_KP9
    case 75...77: return UInt8(rawValue - 75 + 4)  // KEY_KP4 KEY_KP5 KEY_KP6
    case 79...81: return UInt8(rawValue - 79 + 1)  // KEY_KP1 KEY_KP2 KEY_KP3
    case 82: return 0  // KEY_KP0
    default: return nil
    }
  }

  public static let esc = KeyCode(1)
  public static let backspace = KeyCode(14)
  public static let enter = KeyCode(28)
  public static let kpAsterisk = KeyCode(55)
  public static let numLock = KeyCode(69)
  public static let kpDot = KeyCode(83)
  public static let kpEnter = KeyCode(96)
  public static let btnLeft = KeyCode(0x110)
  public static let btnTouch = KeyCode(0x14a)

  /// `KEY_n` for a digit n.
  public static func mainRow(_ digit: UInt8) -> KeyCode {
    KeyCode(digit == 0 ? 11 : UInt16(digit) + 1)
  }
  /// `KEY_KPn` for a digit n.
  public static func keypad(_ digit: UInt8) -> KeyCode {
    let codes: [UInt16] = [82, 79, 80, 81, 75, 76, 77, 71, 72, 73]
    return KeyCode(codes[Int(digit)])
  }

  static let codesByName: [String: UInt16] = Dictionary(
    namesTable.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
  static let namesByCode: [UInt16: String] = Dictionary(
    namesTable.map { ($0.1, $0.0) }, uniquingKeysWith: { first, _ in first })
}
