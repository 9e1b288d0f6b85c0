/// How a framebuffer stores a pixel, as `fb_var_screeninfo` describes it: bits per
/// pixel and, per colour, the bit offset and length within the little-endian pixel.
public struct PixelFormat: Equatable, Hashable, Sendable, CustomStringConvertible {
  public struct Channel: Equatable, Hashable, Sendable {
    public var offset: Int
    public var length: Int
    public init(offset: Int, length: Int) {
      self.offset = offset
      self.length = length
    }
  }

  public var bitsPerPixel: Int
  public var red: Channel
  public var green: Channel
  public var blue: Channel

  public init(bitsPerPixel: Int, red: Channel, green: Channel, blue: Channel) {
    self.bitsPerPixel = bitsPerPixel
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// 32 bpp, bytes B, G, R, X in memory (the canvas's own format).
  public static let xrgb8888 = PixelFormat(
    bitsPerPixel: 32, red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8),
    blue: .init(offset: 0, length: 8))
  /// 32 bpp, bytes R, G, B, X in memory.
  public static let xbgr8888 = PixelFormat(
    bitsPerPixel: 32, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8),
    blue: .init(offset: 16, length: 8))
  /// 24 bpp, bytes B, G, R in memory.
  public static let rgb888 = PixelFormat(
    bitsPerPixel: 24, red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8),
    blue: .init(offset: 0, length: 8))
  /// 24 bpp, bytes R, G, B in memory.
  public static let bgr888 = PixelFormat(
    bitsPerPixel: 24, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8),
    blue: .init(offset: 16, length: 8))
  /// 16 bpp, 5-6-5 with red on top.
  public static let rgb565 = PixelFormat(
    bitsPerPixel: 16, red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6),
    blue: .init(offset: 0, length: 5))

  public var bytesPerPixel: Int { (bitsPerPixel + 7) / 8 }

  /// Whether we can write this format: 16, 24 or 32 bpp, channels inside the pixel.
  public var isSupported: Bool {
    guard [16, 24, 32].contains(bitsPerPixel) else { return false }
    return [red, green, blue].allSatisfy {
      $0.length > 0 && $0.length <= 16 && $0.offset >= 0 && $0.offset + $0.length <= bitsPerPixel
    }
  }

  public var description: String {
    "\(bitsPerPixel)bpp r\(red.offset)/\(red.length) g\(green.offset)/\(green.length) b\(blue.offset)/\(blue.length)"
  }

  /// The pixel value for a canvas colour (0x00RRGGBB).
  @inline(__always)
  public func encode(_ xrgb: UInt32) -> UInt32 {
    @inline(__always) func channel(_ v: UInt32, _ c: Channel) -> UInt32 {
      let scaled = c.length >= 8 ? v << UInt32(c.length - 8) : v >> UInt32(8 - c.length)
      return scaled << UInt32(c.offset)
    }
    return channel((xrgb >> 16) & 0xFF, red) | channel((xrgb >> 8) & 0xFF, green)
      | channel(xrgb & 0xFF, blue)
  }

  /// Copies the `rects` of `canvas` into pixel memory at `base` whose rows are
  /// `lineLength` bytes apart, with canvas (0, 0) at (`xOffset`, `yOffset`). Writes only,
  /// never reads the destination, and nothing at or beyond `capacity` bytes.
  public func write(
    _ canvas: Canvas, rects: [Rect], to base: UnsafeMutableRawPointer, lineLength: Int,
    xOffset: Int = 0, yOffset: Int = 0, capacity: Int
  ) {
    let bpp = bytesPerPixel
    let fastPath = self == .xrgb8888
    canvas.pixels.withUnsafeBufferPointer { src in
      for rect in rects {
        let r = rect.intersection(canvas.bounds)
        if r.isEmpty { continue }
        for y in r.y..<r.maxY {
          let rowStart = (y + yOffset) * lineLength + (r.x + xOffset) * bpp
          let rowEnd = rowStart + r.width * bpp
          guard rowStart >= 0, rowEnd <= capacity else { continue }
          let from = y * canvas.width + r.x
          let dst = base + rowStart
          if fastPath {
            dst.copyMemory(from: src.baseAddress! + from, byteCount: r.width * 4)
            continue
          }
          switch bpp {
          case 4:
            for i in 0..<r.width {
              dst.storeBytes(
                of: encode(src[from + i]).littleEndian, toByteOffset: i * 4, as: UInt32.self)
            }
          case 2:
            for i in 0..<r.width {
              dst.storeBytes(
                of: UInt16(truncatingIfNeeded: encode(src[from + i])).littleEndian,
                toByteOffset: i * 2,
                as: UInt16.self)
            }
          default:
            let bytes = dst.assumingMemoryBound(to: UInt8.self)
            for i in 0..<r.width {
              let v = encode(src[from + i])
              bytes[i * 3] = UInt8(truncatingIfNeeded: v)
              bytes[i * 3 + 1] = UInt8(truncatingIfNeeded: v >> 8)
              bytes[i * 3 + 2] = UInt8(truncatingIfNeeded: v >> 16)
            }
          }
        }
      }
    }
  }
}
