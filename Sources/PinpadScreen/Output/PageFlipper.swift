/// Which of two scan-out buffers to draw next and what to copy into it, so that the
/// screen never shows a frame half drawn: the buffer on screen is never written, the
/// other one is brought up to date with only the parts that changed since it was last
/// written, then flipped to. While a flip is on its way nothing is written (both
/// buffers are then busy); the frames drawn meanwhile go out together after it.
///
/// A value, driven by the display (`changed`, `next`, `flipped`); no I/O.
public struct PageFlipper: Equatable, Sendable {
  /// At most this many rectangles are kept per buffer; more are merged into one.
  public static let maximumRects = 16

  public let bounds: Rect
  /// The buffer on screen (0 or 1).
  public private(set) var front = 0
  /// A flip to the other buffer was queued and has not completed.
  public private(set) var flipPending = false
  /// What each buffer lacks of the current picture.
  public private(set) var damage: [[Rect]]

  /// Both buffers start blank: all of each is to be written.
  public init(width: Int, height: Int) {
    bounds = Rect(x: 0, y: 0, width: width, height: height)
    damage = [[bounds], [bounds]]
  }

  public var back: Int { 1 - front }

  /// The picture changed in `rects`: both buffers lack them.
  public mutating func changed(_ rects: [Rect]) {
    for buffer in 0..<2 {
      for rect in rects { Self.add(rect.intersection(bounds), to: &damage[buffer]) }
    }
  }

  /// Both buffers lack everything (the screen was someone else's meanwhile).
  public mutating func invalidate() {
    damage = [[bounds], [bounds]]
  }

  /// The buffer to write and the rectangles to copy into it, then flip to; nil when a
  /// flip is still pending or the back buffer lacks nothing. Counts the flip as queued.
  public mutating func next() -> (buffer: Int, rects: [Rect])? {
    guard !flipPending, !damage[back].isEmpty else { return nil }
    let rects = damage[back]
    damage[back] = []
    flipPending = true
    return (back, rects)
  }

  /// The flip queued by `next` completed, or its buffer was put on screen at once (a
  /// modeset): that buffer is on screen.
  public mutating func flipped() {
    guard flipPending else { return }
    flipPending = false
    front = back
  }

  /// The flip queued by `next` was refused: its buffer still lacks what it was given.
  public mutating func flipFailed(_ rects: [Rect]) {
    guard flipPending else { return }
    flipPending = false
    for rect in rects { Self.add(rect, to: &damage[back]) }
  }

  private static func add(_ rect: Rect, to list: inout [Rect]) {
    if rect.isEmpty { return }
    if list.contains(where: { $0.intersection(rect) == rect }) { return }
    list.removeAll { rect.intersection($0) == $0 }
    list.append(rect)
    if list.count > maximumRects {
      list = [list.dropFirst().reduce(list[0]) { $0.union($1) }]
    }
  }
}
