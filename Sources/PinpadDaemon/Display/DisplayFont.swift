import PinpadScreen
import PinpadSystem

/// Which font the screens use: `[Display] Font=` when set, else a Debian console font
/// (console-setup's Terminus) when installed, else the built-in one.
public enum DisplayFont {
  public static let consoleFontDirectory = "/usr/share/consolefonts/"

  /// Reads and parses a PSF1/PSF2 file, plain or gzip. Only a regular file is read
  /// (a FIFO would block the start).
  public static func load(path: String) throws -> BitmapFont {
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 4 << 20) } catch {
      throw FontError("cannot read font \(path): \(error.detail)")
    }
    return try FontLoader.load(bytes, name: path)
  }

  /// Terminus Bold 16 px for small screens, 32 px from 720 lines up; built-in when absent.
  public static func standard(forHeight height: Int) -> BitmapFont {
    let names =
      height >= 720
      ? [
        "Lat15-TerminusBold32x16.psf.gz", "Lat15-Terminus32x16.psf.gz",
        "Lat15-TerminusBold16.psf.gz",
      ]
      : ["Lat15-TerminusBold16.psf.gz", "Lat15-Terminus16.psf.gz"]
    for name in names {
      if let font = try? load(path: consoleFontDirectory + name) { return font }
    }
    return .builtin
  }

  /// The regular file's bytes, nil when it cannot be read.
  static func readFile(_ path: String, limit: Int) -> [UInt8]? {
    try? FileSystem.read(path, limit: limit)
  }
}
