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
    write(
      canvas, rects: rects, to: base, lineLength: lineLength, xOffset: xOffset,
      yOffset: yOffset, capacity: capacity, kernel: kernel)
  }

  /// How `write` converts a row: a dedicated loop for the common layouts, `generic`
  /// (`encode` for each pixel) for the others. All give the same bytes as `generic`.
  enum Kernel: Equatable {
    /// XRGB8888, the canvas's own format: a copy.
    case copy32
    /// 16 bpp 5-6-5, red on top (the Raspberry Pi's default) or blue on top.
    case rgb565, bgr565
    /// 32 bpp, each channel 8 bits at a byte boundary: shifted into place.
    case bytes32(red: UInt32, green: UInt32, blue: UInt32)
    /// 24 bpp, each channel one byte: the byte index of each.
    case bytes24(red: Int, green: Int, blue: Int)
    case generic
  }

  var kernel: Kernel {
    func at(_ c: Channel, _ offset: Int, _ length: Int) -> Bool {
      c.offset == offset && c.length == length
    }
    if self == .xrgb8888 { return .copy32 }
    if bitsPerPixel == 16 && at(green, 5, 6) {
      if at(red, 11, 5) && at(blue, 0, 5) { return .rgb565 }
      if at(red, 0, 5) && at(blue, 11, 5) { return .bgr565 }
    }
    func byte(_ c: Channel) -> Bool {
      c.length == 8 && c.offset % 8 == 0 && c.offset >= 0 && c.offset + 8 <= bitsPerPixel
    }
    let bytewise =
      byte(red) && byte(green) && byte(blue) && red.offset != green.offset
      && red.offset != blue.offset && green.offset != blue.offset
    if bytewise && bitsPerPixel == 32 {
      return .bytes32(
        red: UInt32(red.offset), green: UInt32(green.offset), blue: UInt32(blue.offset))
    }
    if bytewise && bitsPerPixel == 24 {
      return .bytes24(red: red.offset / 8, green: green.offset / 8, blue: blue.offset / 8)
    }
    return .generic
  }

  func write(
    _ canvas: Canvas, rects: [Rect], to base: UnsafeMutableRawPointer, lineLength: Int,
    xOffset: Int, yOffset: Int, capacity: Int, kernel: Kernel
  ) {
    let bpp = bytesPerPixel
    canvas.pixels.withUnsafeBufferPointer { pixels in
      let src = pixels.baseAddress!
      for rect in rects {
        let r = rect.intersection(canvas.bounds)
        if r.isEmpty { continue }
        for y in r.y..<r.maxY {
          let rowStart = (y + yOffset) * lineLength + (r.x + xOffset) * bpp
          let rowEnd = rowStart + r.width * bpp
          guard rowStart >= 0, rowEnd <= capacity else { continue }
          convert(src + y * canvas.width + r.x, to: base + rowStart, count: r.width, kernel)
        }
      }
    }
  }

  /// One row of `count` canvas pixels at `s` into pixel memory at `d`.
  @inline(__always)
  func convert(
    _ s: UnsafePointer<UInt32>, to d: UnsafeMutableRawPointer, count: Int, _ kernel: Kernel
  ) {
    switch kernel {
    case .copy32:
      d.copyMemory(from: s, byteCount: count * 4)
    case .rgb565:
      for i in 0..<count {
        let p = s[i]
        let v = (p >> 8) & 0xF800 | (p >> 5) & 0x07E0 | (p >> 3) & 0x001F
        d.storeBytes(
          of: UInt16(truncatingIfNeeded: v).littleEndian, toByteOffset: i &* 2, as: UInt16.self)
      }
    case .bgr565:
      for i in 0..<count {
        let p = s[i]
        let v = (p << 8) & 0xF800 | (p >> 5) & 0x07E0 | (p >> 19) & 0x001F
        d.storeBytes(
          of: UInt16(truncatingIfNeeded: v).littleEndian, toByteOffset: i &* 2, as: UInt16.self)
      }
    case .bytes32(let rs, let gs, let bs):
      for i in 0..<count {
        let p = s[i]
        let v = (p >> 16 & 0xFF) << rs | (p >> 8 & 0xFF) << gs | (p & 0xFF) << bs
        d.storeBytes(of: v.littleEndian, toByteOffset: i &* 4, as: UInt32.self)
      }
    case .bytes24(let ri, let gi, let bi):
      let bytes = d.assumingMemoryBound(to: UInt8.self)
      for i in 0..<count {
        let p = s[i]
        let o = i &* 3
        bytes[o &+ ri] = UInt8(truncatingIfNeeded: p >> 16)
        bytes[o &+ gi] = UInt8(truncatingIfNeeded: p >> 8)
        bytes[o &+ bi] = UInt8(truncatingIfNeeded: p)
      }
    case .generic:
      switch bytesPerPixel {
      case 4:
        for i in 0..<count {
          d.storeBytes(of: encode(s[i]).littleEndian, toByteOffset: i * 4, as: UInt32.self)
        }
      case 2:
        for i in 0..<count {
          d.storeBytes(
            of: UInt16(truncatingIfNeeded: encode(s[i])).littleEndian, toByteOffset: i * 2,
            as: UInt16.self)
        }
      default:
        let bytes = d.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count {
          let v = encode(s[i])
          bytes[i * 3] = UInt8(truncatingIfNeeded: v)
          bytes[i * 3 + 1] = UInt8(truncatingIfNeeded: v >> 8)
          bytes[i * 3 + 2] = UInt8(truncatingIfNeeded: v >> 16)
        }
      }
    }
  }
}
