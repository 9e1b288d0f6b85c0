import PinpadFreeType
import PinpadScreen
import PinpadSystem

/// Which font the screens use: `[Display] Font=` when set (a PSF console font, or a
/// TrueType/OpenType font, told apart by content), else DejaVu Sans Bold (Debian's
/// fonts-dejavu-core) when installed, else a Debian console font (console-setup's
/// Terminus) when installed, else the built-in one (pinpadd.conf(5), [Display] Font=).
public enum DisplayFont {
  public static let consoleFontDirectory = "/usr/share/consolefonts/"
  public static let outlineFontDirectory = "/usr/share/fonts/truetype/dejavu/"
  /// The outline fonts tried first, in order.
  public static let outlineFontNames = ["DejaVuSans-Bold.ttf", "DejaVuSans.ttf"]

  /// Reads and parses a font file: PSF1/PSF2 (plain or gzip) or TrueType/OpenType. Only
  /// a regular file is read (a FIFO would block the start), at most
  /// `FreeTypeFont.maximumBytes`.
  public static func load(path: String) throws -> ScreenFont {
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: FreeTypeFont.maximumBytes) } catch {
      throw FontError("cannot read font \(path): \(error.detail)")
    }
    return try font(bytes, name: path)
  }

  /// The font in `bytes`: outline when they start as TrueType/OpenType, else PSF.
  public static func font(_ bytes: [UInt8], name: String) throws -> ScreenFont {
    if FreeTypeFont.isOutlineFont(bytes) {
      return .outline(OutlineFont(try FreeTypeFont(bytes: bytes, name: name)))
    }
    guard bytes.count <= 4 << 20 else {
      throw FontError("\(name): larger than a PSF font and not a TrueType or OpenType font")
    }
    return .bitmap(try FontLoader.load(bytes, name: name))
  }

  /// The console font files tried, in order, for a picture `height` pixels high:
  /// Terminus Bold 16 px for small screens, 32 px from 720 lines up.
  public static func consoleFontPaths(forHeight height: Int) -> [String] {
    let names =
      height >= 720
      ? [
        "Lat15-TerminusBold32x16.psf.gz", "Lat15-Terminus32x16.psf.gz",
        "Lat15-TerminusBold16.psf.gz",
      ]
      : ["Lat15-TerminusBold16.psf.gz", "Lat15-Terminus16.psf.gz"]
    return names.map { consoleFontDirectory + $0 }
  }

  /// Every font file tried without `Font=`, in order: DejaVu, then the console fonts.
  public static func defaultPaths(forHeight height: Int) -> [String] {
    outlineFontNames.map { outlineFontDirectory + $0 } + consoleFontPaths(forHeight: height)
  }

  /// The first of `paths` that `load` opens, else the built-in font.
  public static func first(
    of paths: [String], load: (String) throws -> ScreenFont = load(path:)
  ) -> ScreenFont {
    for path in paths {
      if let font = try? load(path) { return font }
    }
    return .builtin
  }

  /// The font without `Font=`: DejaVu Sans where installed, else Terminus for the
  /// height, else the built-in font.
  public static func preferred(forHeight height: Int) -> ScreenFont {
    first(of: defaultPaths(forHeight: height))
  }

  /// The regular file's bytes, nil when it cannot be read.
  static func readFile(_ path: String, limit: Int) -> [UInt8]? {
    try? FileSystem.read(path, limit: limit)
  }
}
