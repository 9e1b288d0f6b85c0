/// The colours of the screens: a dark, calm background, light text, one accent, and a
/// clear colour per verdict.
public struct Theme: Equatable, Sendable {
  public var background = Color(xrgb: 0x0F_1620)
  public var text = Color(xrgb: 0xEE_F2F6)
  public var dimText = Color(xrgb: 0x8A_97A6)
  public var boxFill = Color(xrgb: 0x1B_2531)
  public var boxBorder = Color(xrgb: 0x3A_4858)
  public var accent = Color(xrgb: 0x4D_A3FF)
  public var notice = Color(xrgb: 0xFF_B84D)
  public var granted = Color(xrgb: 0x1F_9D55)
  public var denied = Color(xrgb: 0xD6_3B3B)
  public var locked = Color(xrgb: 0xC9_7A1C)
  public var unavailable = Color(xrgb: 0x5E_6B7A)
  public var noResponse = Color(xrgb: 0x7A_5FC4)
  public var key = Color(xrgb: 0x22_2E3B)
  public var keyPressed = Color(xrgb: 0x4D_A3FF)
  public var okKey = Color(xrgb: 0x1F_7F47)
  public var eraseKey = Color(xrgb: 0x2D_3947)

  public init() {}
  public static let standard = Theme()
}
