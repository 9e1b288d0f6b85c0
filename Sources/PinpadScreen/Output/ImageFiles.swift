/// Image files made from a canvas, for snapshots and golden tests: PNG (8-bit RGB,
/// deflated with zlib) and binary PPM (P6).
public enum ImageFile {
  /// The canvas as a PNG file.
  public static func png(_ canvas: Canvas) throws -> [UInt8] {
    var raw = [UInt8]()
    raw.reserveCapacity(canvas.height * (1 + canvas.width * 3))
    canvas.pixels.withUnsafeBufferPointer { p in
      for y in 0..<canvas.height {
        raw.append(0)  // filter: none
        for x in 0..<canvas.width {
          let v = p[y * canvas.width + x]
          raw.append(UInt8(truncatingIfNeeded: v >> 16))
          raw.append(UInt8(truncatingIfNeeded: v >> 8))
          raw.append(UInt8(truncatingIfNeeded: v))
        }
      }
    }
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(canvas.width))
    header.appendBigEndian(UInt32(canvas.height))
    header += [8, 2, 0, 0, 0]  // depth 8, RGB, deflate, adaptive filters, no interlace
    appendChunk("IHDR", header, to: &out)
    appendChunk("IDAT", try Zlib.deflate(raw, level: 9), to: &out)
    appendChunk("IEND", [], to: &out)
    return out
  }

  private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
    out.appendBigEndian(UInt32(data.count))
    let typed = Array(type.utf8) + data
    out += typed
    out.appendBigEndian(Zlib.crc32(typed[...]))
  }

  /// The canvas as a binary PPM (P6) file.
  public static func ppm(_ canvas: Canvas) -> [UInt8] {
    var out = Array("P6\n\(canvas.width) \(canvas.height)\n255\n".utf8)
    out.reserveCapacity(out.count + canvas.width * canvas.height * 3)
    for v in canvas.pixels {
      out.append(UInt8(truncatingIfNeeded: v >> 16))
      out.append(UInt8(truncatingIfNeeded: v >> 8))
      out.append(UInt8(truncatingIfNeeded: v))
    }
    return out
  }

  /// Reads an 8-bit, non-interlaced PNG (grey, RGB, RGBA, grey+alpha; any filter) into a
  /// canvas; alpha is dropped. Enough for our goldens and for QEMU's screendumps.
  public static func decodePNG(_ bytes: [UInt8]) throws -> Canvas {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count > 8, Array(bytes[0..<8]) == signature else { throw ImageError("not a PNG") }
    var i = 8
    var width = 0
    var height = 0
    var channels = 0
    var idat: [UInt8] = []
    func u32(_ at: Int) -> Int {
      Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }
    while i + 12 <= bytes.count {
      let length = u32(i)
      let type = String(decoding: bytes[i + 4..<i + 8], as: UTF8.self)
      let start = i + 8
      guard start + length + 4 <= bytes.count else { throw ImageError("truncated \(type) chunk") }
      let data = bytes[start..<start + length]
      guard Zlib.crc32(bytes[i + 4..<start + length]) == UInt32(u32(start + length)) else {
        throw ImageError("bad CRC in \(type)")
      }
      switch type {
      case "IHDR":
        width = u32(start)
        height = u32(start + 4)
        let depth = bytes[start + 8]
        let colorType = bytes[start + 9]
        guard depth == 8, bytes[start + 12] == 0 else {
          throw ImageError("only 8-bit non-interlaced PNG")
        }
        switch colorType {
        case 0: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: throw ImageError("unsupported PNG colour type \(colorType)")
        }
      case "IDAT": idat += data
      default: break
      }
      i = start + length + 4
      if type == "IEND" { break }
    }
    guard width > 0, height > 0, channels > 0 else { throw ImageError("PNG without a header") }
    let raw = try Zlib.inflate(idat, limit: height * (1 + width * channels) + 1)
    let stride = width * channels
    guard raw.count >= height * (stride + 1) else { throw ImageError("PNG image data too short") }
    var rows = [UInt8](repeating: 0, count: height * stride)
    for y in 0..<height {
      let filter = raw[y * (stride + 1)]
      for x in 0..<stride {
        let value = raw[y * (stride + 1) + 1 + x]
        let a = x >= channels ? Int(rows[y * stride + x - channels]) : 0
        let b = y > 0 ? Int(rows[(y - 1) * stride + x]) : 0
        let c = x >= channels && y > 0 ? Int(rows[(y - 1) * stride + x - channels]) : 0
        let predictor: Int
        switch filter {
        case 0: predictor = 0
        case 1: predictor = a
        case 2: predictor = b
        case 3: predictor = (a + b) / 2
        case 4:
          let p = a + b - c
          let pa = abs(p - a)
          let pb = abs(p - b)
          let pc = abs(p - c)
          predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
        default: throw ImageError("bad PNG filter \(filter)")
        }
        rows[y * stride + x] = value &+ UInt8(truncatingIfNeeded: predictor)
      }
    }
    var pixels = [UInt32](repeating: 0, count: width * height)
    for p in 0..<width * height {
      let o = p * channels
      pixels[p] =
        channels >= 3
        ? UInt32(rows[o]) << 16 | UInt32(rows[o + 1]) << 8 | UInt32(rows[o + 2])
        : UInt32(rows[o]) * 0x01_0101
    }
    return Canvas(width: width, height: height, pixels: pixels)
  }
}

/// Why bytes are not an image we can read.
public struct ImageError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

extension [UInt8] {
  mutating func appendBigEndian(_ v: UInt32) {
    append(UInt8(truncatingIfNeeded: v >> 24))
    append(UInt8(truncatingIfNeeded: v >> 16))
    append(UInt8(truncatingIfNeeded: v >> 8))
    append(UInt8(truncatingIfNeeded: v))
  }
}
