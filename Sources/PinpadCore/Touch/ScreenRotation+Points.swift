extension ScreenRotation {
  /// The picture's size on a screen of `width` x `height` pixels: sides swapped at 90
  /// and 270 degrees.
  public func pictureSize(screenWidth width: Int, screenHeight height: Int) -> (
    width: Int, height: Int
  ) {
    swapsSides ? (height, width) : (width, height)
  }

  /// The picture's pixel shown at screen pixel (`x`, `y`), on a screen of `width` x
  /// `height`: how a touch on a turned screen finds the key drawn under it. The picture
  /// is turned clockwise by `self` (at 90, its top-left corner is the screen's top-right).
  public func picturePoint(
    screenX x: Int, screenY y: Int, screenWidth width: Int, screenHeight height: Int
  ) -> (x: Int, y: Int) {
    switch self {
    case .none: return (x, y)
    case .clockwise90: return (y, width - 1 - x)
    case .upsideDown: return (width - 1 - x, height - 1 - y)
    case .clockwise270: return (height - 1 - y, x)
    }
  }

  /// The screen pixel where the picture's pixel (`x`, `y`) shows; the inverse of
  /// `picturePoint`. `width` x `height` is the picture's size.
  public func screenPoint(
    pictureX x: Int, pictureY y: Int, pictureWidth width: Int, pictureHeight height: Int
  ) -> (x: Int, y: Int) {
    switch self {
    case .none: return (x, y)
    case .clockwise90: return (height - 1 - y, x)
    case .upsideDown: return (width - 1 - x, height - 1 - y)
    case .clockwise270: return (y, width - 1 - x)
    }
  }
}
