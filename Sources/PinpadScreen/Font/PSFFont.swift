/// Why bytes are not a font the screens can use.
public struct FontError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Parses PC Screen Font files (PSF1 and PSF2, as `setfont` reads them), plain or gzip.
public enum FontLoader {
  /// The font in `bytes`: PSF1 or PSF2, optionally gzip-compressed (`.psf.gz`).
  public static func load(_ bytes: [UInt8], name: String = "font") throws -> BitmapFont {
    var data = bytes
    if data.count >= 2 && data[0] == 0x1F && data[1] == 0x8B {
      do {
        data = try Zlib.inflate(data, limit: 8 << 20)
      } catch {
        throw FontError("\(name): bad gzip data (\(error))")
      }
    }
    if data.count >= 4 && data[0] == 0x36 && data[1] == 0x04 {
      return try psf1(data, name: name)
    }
    if data.count >= 32 && data[0] == 0x72 && data[1] == 0xB5 && data[2] == 0x4A
      && data[3] == 0x86
    {
      return try psf2(data, name: name)
    }
    throw FontError("\(name): not a PSF1, PSF2, TrueType or OpenType font")
  }

  static func psf1(_ d: [UInt8], name: String) throws -> BitmapFont {
    let mode = d[2]
    let height = Int(d[3])
    let count = mode & 0x01 != 0 ? 512 : 256
    guard height > 0 else { throw FontError("\(name): PSF1 glyph height 0") }
    let glyphBytes = count * height
    guard d.count >= 4 + glyphBytes else { throw FontError("\(name): PSF1 file is truncated") }
    let bitmaps = Array(d[4..<4 + glyphBytes])
    var map: [UInt32: Int]? = nil
    if mode & 0x06 != 0 {
      // Per glyph: UCS-2 little-endian values, 0xFFFE starts sequences, 0xFFFF ends.
      var m: [UInt32: Int] = [:]
      var i = 4 + glyphBytes
      var glyph = 0
      var inSequence = false
      while glyph < count && i + 1 < d.count {
        let v = UInt32(d[i]) | UInt32(d[i + 1]) << 8
        i += 2
        if v == 0xFFFF {
          glyph += 1
          inSequence = false
        } else if v == 0xFFFE {
          inSequence = true
        } else if !inSequence && m[v] == nil {
          m[v] = glyph
        }
      }
      map = m
    }
    return BitmapFont(
      name: name, width: 8, height: height, glyphCount: count, bitmaps: bitmaps, map: map)
  }

  static func psf2(_ d: [UInt8], name: String) throws -> BitmapFont {
    func u32(_ at: Int) -> Int {
      Int(
        UInt32(d[at]) | UInt32(d[at + 1]) << 8 | UInt32(d[at + 2]) << 16 | UInt32(d[at + 3]) << 24)
    }
    let headerSize = u32(8)
    let flags = u32(12)
    let count = u32(16)
    let charSize = u32(20)
    let height = u32(24)
    let width = u32(28)
    guard width > 0, height > 0, width <= 64, height <= 128, count > 0, count <= 65536,
      charSize == height * ((width + 7) / 8), headerSize >= 32
    else { throw FontError("\(name): PSF2 header is inconsistent") }
    let end = headerSize + count * charSize
    guard d.count >= end else { throw FontError("\(name): PSF2 file is truncated") }
    let bitmaps = Array(d[headerSize..<end])
    var map: [UInt32: Int]? = nil
    if flags & 1 != 0 {
      // Per glyph: UTF-8 scalars, 0xFE starts sequences, 0xFF ends.
      var m: [UInt32: Int] = [:]
      var i = end
      var glyph = 0
      var inSequence = false
      while glyph < count && i < d.count {
        let b = d[i]
        if b == 0xFF {
          glyph += 1
          inSequence = false
          i += 1
          continue
        }
        if b == 0xFE {
          inSequence = true
          i += 1
          continue
        }
        let (scalar, length) = decodeUTF8(d, at: i)
        i += length
        if let scalar, !inSequence, m[scalar] == nil { m[scalar] = glyph }
      }
      map = m
    }
    return BitmapFont(
      name: name, width: width, height: height, glyphCount: count, bitmaps: bitmaps, map: map)
  }

  /// One UTF-8 scalar at `i`: its value (nil when malformed) and byte length (at least 1).
  static func decodeUTF8(_ d: [UInt8], at i: Int) -> (UInt32?, Int) {
    let b0 = d[i]
    let length: Int
    var value: UInt32
    switch b0 {
    case 0x00..<0x80: return (UInt32(b0), 1)
    case 0xC0..<0xE0:
      length = 2
      value = UInt32(b0 & 0x1F)
    case 0xE0..<0xF0:
      length = 3
      value = UInt32(b0 & 0x0F)
    case 0xF0..<0xF8:
      length = 4
      value = UInt32(b0 & 0x07)
    default: return (nil, 1)
    }
    guard i + length <= d.count else { return (nil, 1) }
    for k in 1..<length {
      let b = d[i + k]
      guard b & 0xC0 == 0x80 else { return (nil, k) }
      value = value << 6 | UInt32(b & 0x3F)
    }
    return (value, length)
  }
}
