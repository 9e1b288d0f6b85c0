import PinpadCore
import PinpadScreen
import PinpadSystem

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
  public let rotation: ScreenRotation
  public private(set) var frameCount = 0
  private var renderer: ScreenRenderer
  private var canvas: Canvas

  /// Makes `directory` if needed. Throws when it cannot be made.
  public init(
    directory: String, width: Int = 800, height: Int = 480, font: ScreenFont? = nil,
    format: Format = .png, rotation: ScreenRotation = .none
  ) throws {
    guard width > 0, height > 0, width <= 8192, height <= 8192 else {
      throw SnapshotError("snapshot size \(width)x\(height) is out of range")
    }
    do { try FileSystem.makeDirectory(directory) } catch {
      throw SnapshotError("\(error)")
    }
    self.directory = directory
    self.format = format
    self.rotation = rotation
    let picture = rotation.pictureSize(screenWidth: width, screenHeight: height)
    renderer = ScreenRenderer(
      font: font ?? DisplayFont.preferred(forHeight: picture.height), rotation: rotation)
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
    guard !bytes.isEmpty else { return }
    try? FileSystem.writeAtomically(final, bytes, mode: 0o644, sync: false)
  }

  public func close() {}
}

/// Why a snapshot display could not start.
public struct SnapshotError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
