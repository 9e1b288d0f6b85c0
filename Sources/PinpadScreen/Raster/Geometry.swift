/// A rectangle in pixels; `x`, `y` is the top-left corner. Empty when a side is 0 or less.
public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

  public var isEmpty: Bool { width <= 0 || height <= 0 }
  public var maxX: Int { x + width }
  public var maxY: Int { y + height }
  public var midX: Int { x + width / 2 }
  public var midY: Int { y + height / 2 }

  public func contains(x px: Int, y py: Int) -> Bool {
    px >= x && px < maxX && py >= y && py < maxY
  }

  /// The common part, `.zero` when none.
  public func intersection(_ other: Rect) -> Rect {
    let x0 = max(x, other.x)
    let y0 = max(y, other.y)
    let x1 = min(maxX, other.maxX)
    let y1 = min(maxY, other.maxY)
    if x1 <= x0 || y1 <= y0 { return .zero }
    return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// The smallest rectangle holding both (an empty one adds nothing).
  public func union(_ other: Rect) -> Rect {
    if isEmpty { return other }
    if other.isEmpty { return self }
    let x0 = min(x, other.x)
    let y0 = min(y, other.y)
    return Rect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
  }

  /// Shrunk by `d` on every side (grown when negative).
  public func insetBy(_ d: Int) -> Rect {
    Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d)
  }

  public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A colour as 0x00RRGGBB, the canvas's pixel format (XRGB8888).
public struct Color: Equatable, Hashable, Sendable {
  public var xrgb: UInt32
  public init(xrgb: UInt32) { self.xrgb = xrgb & 0x00FF_FFFF }
  public init(red: UInt8, green: UInt8, blue: UInt8) {
    xrgb = UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
  }
  public var red: UInt8 { UInt8(truncatingIfNeeded: xrgb >> 16) }
  public var green: UInt8 { UInt8(truncatingIfNeeded: xrgb >> 8) }
  public var blue: UInt8 { UInt8(truncatingIfNeeded: xrgb) }

  /// `self` moved towards `other` by `amount` 0...256 (256 is `other`).
  public func mixed(with other: Color, amount: Int) -> Color {
    func m(_ a: UInt8, _ b: UInt8) -> UInt8 {
      UInt8((Int(a) * (256 - amount) + Int(b) * amount) >> 8)
    }
    return Color(
      red: m(red, other.red), green: m(green, other.green), blue: m(blue, other.blue))
  }
}
