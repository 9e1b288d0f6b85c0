import CFreeType
import Glibc
import PinpadScreen

/// A TrueType or OpenType font through FreeType (Debian's libfreetype6): glyphs rendered
/// as 8-bit coverage for the screens (pinpadd.conf(5), [Display] Font=). The face is
/// FreeType's and not safe to share, so every call holds the font's lock.
public final class FreeTypeFont: OutlineGlyphSource, @unchecked Sendable {
  public let name: String
  public let metrics: OutlineMetrics
  /// "DejaVu Sans Bold": the font's family and style, for the log.
  public let fullName: String
  /// No font file larger than this is read.
  public static let maximumBytes = 16 << 20
  /// No glyph is rendered at an em larger than this, in pixels.
  public static let maximumEmPixels = 1024

  private let library: FT_Library
  private let face: FT_Face
  private let data: UnsafeMutableBufferPointer<UInt8>
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private let hasKerning: Bool

  /// Whether `bytes` start as a TrueType, OpenType or TrueType collection file does.
  public static func isOutlineFont(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 4 else { return false }
    let tag = Array(bytes[0..<4])
    return tag == [0x00, 0x01, 0x00, 0x00] || tag == Array("OTTO".utf8)
      || tag == Array("true".utf8) || tag == Array("ttcf".utf8)
  }

  /// The font in `bytes` (`name` is its path, for messages): a scalable face FreeType
  /// opens, with glyphs for the digits.
  public init(bytes: [UInt8], name: String) throws(FontError) {
    guard bytes.count <= Self.maximumBytes else {
      throw FontError("\(name): larger than \(Self.maximumBytes >> 20) MiB")
    }
    guard Self.isOutlineFont(bytes) else {
      throw FontError("\(name): not a TrueType or OpenType font")
    }
    var library: FT_Library? = nil
    guard FT_Init_FreeType(&library) == 0, let library else {
      throw FontError("\(name): FreeType cannot start")
    }
    // FreeType reads the file's bytes while the face lives: they are kept here.
    let data = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
    _ = data.initialize(from: bytes)
    var face: FT_Face? = nil
    let opened = FT_New_Memory_Face(library, data.baseAddress, FT_Long(bytes.count), 0, &face)
    guard opened == 0, let face else {
      data.deallocate()
      FT_Done_FreeType(library)
      throw FontError("\(name): FreeType cannot open it as a font (error \(opened))")
    }
    let rec = face.pointee
    let digitsPresent = (0x30...0x39).allSatisfy { FT_Get_Char_Index(face, FT_ULong($0)) != 0 }
    guard rec.face_flags & PINPAD_FT_FACE_FLAG_SCALABLE != 0, rec.units_per_EM > 0,
      rec.ascender > rec.descender, digitsPresent
    else {
      FT_Done_Face(face)
      data.deallocate()
      FT_Done_FreeType(library)
      throw FontError("\(name): not a scalable font with glyphs for the digits")
    }
    self.library = library
    self.face = face
    self.data = data
    self.name = name
    metrics = OutlineMetrics(
      unitsPerEm: Int(rec.units_per_EM), ascender: Int(rec.ascender),
      descender: Int(rec.descender))
    hasKerning = rec.face_flags & PINPAD_FT_FACE_FLAG_KERNING != 0
    let family = rec.family_name.map { String(cString: $0) } ?? ""
    let style = rec.style_name.map { String(cString: $0) } ?? ""
    fullName = style.isEmpty || style == "Regular" ? family : "\(family) \(style)"
    lock = .allocate(capacity: 1)
    pthread_mutex_init(lock, nil)
  }

  deinit {
    FT_Done_Face(face)
    FT_Done_FreeType(library)
    data.deallocate()
    pthread_mutex_destroy(lock)
    lock.deallocate()
  }

  private func locked<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return body()
  }

  public func advance(of scalar: Unicode.Scalar) -> Int? {
    locked {
      let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
      guard index != 0, FT_Load_Glyph(face, index, PINPAD_FT_LOAD_NO_SCALE) == 0 else {
        return nil
      }
      return Int(face.pointee.glyph.pointee.advance.x)
    }
  }

  public func kerning(_ left: Unicode.Scalar, _ right: Unicode.Scalar) -> Int {
    guard hasKerning else { return 0 }
    return locked {
      let l = FT_Get_Char_Index(face, FT_ULong(left.value))
      let r = FT_Get_Char_Index(face, FT_ULong(right.value))
      var delta = FT_Vector()
      guard l != 0, r != 0, FT_Get_Kerning(face, l, r, PINPAD_FT_KERNING_UNSCALED, &delta) == 0
      else { return 0 }
      return Int(delta.x)
    }
  }

  public func glyph(of scalar: Unicode.Scalar, emSize64: Int) -> CoverageGlyph? {
    let em = max(64, min(emSize64, Self.maximumEmPixels * 64))
    return locked {
      let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
      guard index != 0, FT_Set_Char_Size(face, 0, FT_F26Dot6(em), 72, 72) == 0,
        FT_Load_Glyph(
          face, index,
          PINPAD_FT_LOAD_RENDER | PINPAD_FT_LOAD_TARGET_LIGHT | PINPAD_FT_LOAD_NO_BITMAP
        ) == 0
      else { return nil }
      let slot = face.pointee.glyph.pointee
      let bitmap = slot.bitmap
      let width = Int(bitmap.width)
      let height = Int(bitmap.rows)
      let pitch = Int(bitmap.pitch)
      var coverage = [UInt8](repeating: 0, count: width * height)
      if width > 0, height > 0, let buffer = bitmap.buffer,
        bitmap.pixel_mode == PINPAD_FT_PIXEL_MODE_GRAY, abs(pitch) >= width
      {
        // A negative pitch: rows bottom up, the buffer pointing at the last one's start.
        for row in 0..<height {
          let start = pitch > 0 ? row * pitch : (row - height + 1) * pitch
          for col in 0..<width { coverage[row * width + col] = buffer[start + col] }
        }
      }
      return CoverageGlyph(
        width: width, height: height, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top),
        coverage: coverage)
    }
  }
}
