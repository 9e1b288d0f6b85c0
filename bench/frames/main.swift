// `make bench`'s frame figures: PinpadScreen's render of the entry screen plus its
// conversion into an in-memory framebuffer (32 bpp XRGB8888 and 16 bpp RGB565, each
// line padded by 64 bytes as real line_lengths are), and the DRM display's path: canvas,
// PageFlipper, two in-memory buffers standing in for the dumb buffers (32 bpp, pitch
// as a dumb buffer's), upright and turned 90 degrees; through public API only. The
// `_ttf` figures draw with DejaVu Sans Bold through FreeType (fonts-dejavu-core), its
// digits shown (Mask=digits) so that the update draws a glyph; left out without it.
// Prints `name: value` lines, microseconds per frame (median of the rounds); asserts
// nothing. Never installed or packaged.
//
//   pinpadd-bench-frames [ROUNDS]    (default 50)
import Glibc
import PinpadCore
import PinpadFreeType
import PinpadScreen

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 50 : 50
let clock = ContinuousClock()

func micros(_ d: Duration) -> Double {
  Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

/// Full frame and one-digit update at w x h in `format`: microseconds, medians.
func measure(
  width w: Int, height h: Int, _ format: PixelFormat, font: ScreenFont = .builtin,
  showDigits: Bool = false
) -> (frame: Double, digit: Double) {
  let lineLength = w * format.bytesPerPixel + 64
  var memory = [UInt8](repeating: 0, count: lineLength * h)
  func flush(_ canvas: inout Canvas) {
    let rects = canvas.takeDirty()
    memory.withUnsafeMutableBytes { raw in
      format.write(
        canvas, rects: rects, to: raw.baseAddress!, lineLength: lineLength, capacity: raw.count)
    }
  }
  var model = ScreenModel()
  model.phase = .entering
  model.boxes = 6
  var renderer = ScreenRenderer(font: font)
  var canvas = Canvas(width: w, height: h)
  var frames: [Double] = []
  for _ in 0..<rounds {
    frames.append(
      micros(
        clock.measure {
          renderer.invalidate()
          renderer.draw(model, on: &canvas)
          flush(&canvas)
        }))
  }
  var digits: [Double] = []
  for n in 0..<rounds {
    model.filled = n % 6
    model.cursor = n % 6
    if showDigits { model.digits = (0..<n % 6).map { UInt8(($0 + n) % 10) } }
    renderer.draw(model, on: &canvas)
    flush(&canvas)
    model.filled = n % 6 + 1
    model.cursor = n % 6 + 1
    if showDigits { model.digits = (0..<n % 6 + 1).map { UInt8(($0 + n) % 10) } }
    digits.append(
      micros(
        clock.measure {
          renderer.draw(model, on: &canvas)
          flush(&canvas)
        }))
  }
  return (median(frames), median(digits))
}

/// The DRM display's path at w x h turned by `rotation`: the renderer draws the upright
/// picture on a canvas, whose changed rectangles, turned, go through a PageFlipper into
/// the back one of two buffers standing in for the dumb buffers (turned and converted in
/// one pass, as the DRM display does), which is then taken as flipped to.
struct DRMPath {
  let pitch: Int
  let rotation: ScreenRotation
  var buffers: [[UInt8]]
  var flipper: PageFlipper
  var renderer: ScreenRenderer
  var canvas: Canvas
  var model = ScreenModel()

  init(width w: Int, height h: Int, rotation: ScreenRotation = .none) {
    // A dumb buffer's pitch: 4 bytes a pixel, lines aligned to 64 bytes (as the
    // generic and most drivers' dumb_create give).
    pitch = (w * 4 + 63) / 64 * 64
    self.rotation = rotation
    buffers = [[UInt8]](repeating: [UInt8](repeating: 0, count: pitch * h), count: 2)
    flipper = PageFlipper(width: w, height: h)
    renderer = ScreenRenderer()
    let picture = rotation.pictureSize(screenWidth: w, screenHeight: h)
    canvas = Canvas(width: picture.width, height: picture.height)
    model.phase = .entering
    model.boxes = 6
  }

  mutating func present() {
    let (turn, pw, ph) = (rotation, canvas.width, canvas.height)
    flipper.changed(
      canvas.takeDirty().map {
        Canvas.screenRect(of: $0, rotation: turn, pictureWidth: pw, pictureHeight: ph)
      })
    guard let (buffer, rects) = flipper.next() else { return }
    let pitch = pitch
    buffers[buffer].withUnsafeMutableBytes { raw in
      PixelFormat.xrgb8888.write(
        canvas, turnedBy: turn, rects: rects, to: raw.baseAddress!, lineLength: pitch,
        capacity: raw.count)
    }
    flipper.flipped()
  }

  /// One full frame, microseconds.
  mutating func frame() -> Double {
    micros(
      clock.measure {
        renderer.invalidate()
        renderer.draw(model, on: &canvas)
        present()
      })
  }

  /// One more digit (the `n`th), microseconds. The back buffer lacks this change and the
  /// one before (it was last written two frames ago), as when digits are typed one
  /// after another.
  mutating func digit(_ n: Int) -> Double {
    model.filled = n % 6
    model.cursor = n % 6
    renderer.draw(model, on: &canvas)
    present()
    model.filled = n % 6 + 1
    model.cursor = n % 6 + 1
    return micros(
      clock.measure {
        renderer.draw(model, on: &canvas)
        present()
      })
  }
}

func emit(_ name: String, _ value: Double) {
  let tenths = Int(value * 10 + 0.5)
  print("\(name): \(tenths / 10).\(tenths % 10)")
}

let small = measure(width: 800, height: 480, .xrgb8888)
let large = measure(width: 1920, height: 1080, .xrgb8888)
let small565 = measure(width: 800, height: 480, .rgb565)
emit("frame_us_800x480", small.frame)
emit("frame_us_1920x1080", large.frame)
emit("frame_us_800x480_rgb565", small565.frame)
emit("digit_update_us", small.digit)
emit("digit_update_us_rgb565", small565.digit)

/// DejaVu Sans Bold, nil when fonts-dejavu-core is not installed (or unreadable).
func dejaVu() -> ScreenFont? {
  let path = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
  var bytes: [UInt8] = []
  guard let file = fopen(path, "rb") else { return nil }
  defer { fclose(file) }
  var chunk = [UInt8](repeating: 0, count: 65536)
  while bytes.count <= FreeTypeFont.maximumBytes {
    let n = fread(&chunk, 1, chunk.count, file)
    if n <= 0 { break }
    bytes += chunk[0..<n]
  }
  guard let font = try? FreeTypeFont(bytes: bytes, name: path) else { return nil }
  return .outline(OutlineFont(font))
}

if let ttf = dejaVu() {
  let outline = measure(width: 800, height: 480, .xrgb8888, font: ttf, showDigits: true)
  emit("frame_us_800x480_xrgb8888_ttf", outline.frame)
  emit("digit_update_us_800x480_xrgb8888_ttf", outline.digit)
}

var drmSmall = DRMPath(width: 800, height: 480)
var drmLarge = DRMPath(width: 1920, height: 1080)
var drmTurned = DRMPath(width: 800, height: 480, rotation: .clockwise90)
// The turned frame and the upright one are measured in turns, round by round, so that
// a busy machine weighs on both alike.
var upright: [Double] = []
var turned: [Double] = []
for _ in 0..<rounds {
  upright.append(drmSmall.frame())
  turned.append(drmTurned.frame())
}
emit("drm_frame_us_800x480", median(upright))
emit("drm_frame_us_1920x1080", median((0..<rounds).map { _ in drmLarge.frame() }))
emit("drm_digit_update_us", median((0..<rounds).map { drmSmall.digit($0) }))
emit("drm_digit_update_us_rotated90", median((0..<rounds).map { drmTurned.digit($0) }))
emit("drm_frame_us_800x480_rotated90", median(turned))
let ratio = Int(median(turned) / median(upright) * 100 + 0.5)
print("drm_rotated_frame_ratio: \(ratio / 100).\(ratio % 100 < 10 ? "0" : "")\(ratio % 100)")
