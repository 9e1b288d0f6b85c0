import Glibc
import PinpadCore
import PinpadScreen

/// `--display snapshot:DIR`: every frame as a numbered image file (`frame-000001.png`,
/// ...) at a fixed size, for tests and README pictures. Each file appears whole (written
/// under a temporary name, then renamed).
public final class SnapshotDisplay: Display {
  public enum Format: Sendable {
    case png
    case ppm
  }

  public let directory: String
  public let format: Format
  public private(set) var frameCount = 0
  private var renderer: ScreenRenderer
  private var canvas: Canvas

  /// Makes `directory` if needed. Throws when it cannot be made.
  public init(
    directory: String, width: Int = 800, height: Int = 480, font: BitmapFont? = nil,
    format: Format = .png
  ) throws {
    guard width > 0, height > 0, width <= 8192, height <= 8192 else {
      throw SnapshotError("snapshot size \(width)x\(height) is out of range")
    }
    if mkdir(directory, 0o755) != 0 && errno != EEXIST {
      throw SnapshotError("cannot create \(directory): \(String(cString: strerror(errno)))")
    }
    self.directory = directory
    self.format = format
    renderer = ScreenRenderer(font: font ?? DisplayFont.standard(forHeight: height))
    canvas = Canvas(width: width, height: height)
  }

  public var pixelSize: (width: Int, height: Int)? { (canvas.width, canvas.height) }

  /// The layout of the last frame (for mapping clicks to on-screen keys).
  public var layout: ScreenLayout? { renderer.layout }

  /// The path of frame `number` (1-based).
  public func path(ofFrame number: Int) -> String {
    var digits = String(number)
    while digits.count < 6 { digits = "0" + digits }
    return "\(directory)/frame-\(digits).\(format == .png ? "png" : "ppm")"
  }

  public func show(_ model: ScreenModel) {
    renderer.draw(model, on: &canvas)
    _ = canvas.takeDirty()
    frameCount += 1
    let bytes: [UInt8]
    switch format {
    case .png: bytes = (try? ImageFile.png(canvas)) ?? []
    case .ppm: bytes = ImageFile.ppm(canvas)
    }
    let final = path(ofFrame: frameCount)
    let temporary = final + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    var ok = !bytes.isEmpty
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while ok && offset < raw.count {
        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { ok = false } else { offset += n }
      }
    }
    Glibc.close(fd)
    if ok { rename(temporary, final) } else { unlink(temporary) }
  }

  public func close() {}
}

/// Why a snapshot display could not start.
public struct SnapshotError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
