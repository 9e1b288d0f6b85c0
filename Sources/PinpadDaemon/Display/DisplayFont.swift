import Glibc
import PinpadScreen

/// Which font the screens use: `[Display] Font=` when set, else a Debian console font
/// (console-setup's Terminus) when installed, else the built-in one.
public enum DisplayFont {
  public static let consoleFontDirectory = "/usr/share/consolefonts/"

  /// Reads and parses a PSF1/PSF2 file, plain or gzip.
  public static func load(path: String) throws -> BitmapFont {
    guard let bytes = readFile(path, limit: 4 << 20) else {
      throw FontError("cannot read font \(path): \(String(cString: strerror(errno)))")
    }
    return try FontLoader.load(bytes, name: path)
  }

  /// The configured font (errors are the caller's to report), or the default.
  public static func font(configured path: String?, screenHeight: Int) throws -> BitmapFont {
    if let path, !path.isEmpty { return try load(path: path) }
    return standard(forHeight: screenHeight)
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

  static func readFile(_ path: String, limit: Int) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { Glibc.close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count <= limit {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n < 0 { return nil }
      if n == 0 { return bytes }
      bytes += chunk[0..<n]
    }
    return nil
  }
}
