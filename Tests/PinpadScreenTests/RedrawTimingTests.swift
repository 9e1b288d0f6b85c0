import Glibc
import PinpadCore
import PinpadScreen
import Testing

/// Prints full-frame and one-digit redraw times (render plus conversion into a fake
/// XRGB8888 framebuffer with a padded stride), and the one-digit redraw as a ratio
/// of the full frame measured in the same run. Asserts nothing about time.
/// A benchmark, not a test: `make bench` runs it in a release build.
@Suite struct RedrawTimingTests {
  @Test(
    "Redraw benchmark (make bench)",
    .enabled(if: Environment.benchmarks))
  func printRedrawTimes() {
    let clock = ContinuousClock()
    for (w, h) in [(800, 480), (1920, 1080)] {
      for keypad in [false, true] {
        var memory = [UInt8](repeating: 0, count: (w * 4 + 64) * h)
        func flush(_ canvas: inout Canvas, _ format: PixelFormat) {
          let rects = canvas.takeDirty()
          let lineLength = w * format.bytesPerPixel + 64
          memory.withUnsafeMutableBytes { raw in
            format.write(
              canvas, rects: rects, to: raw.baseAddress!, lineLength: lineLength,
              capacity: raw.count)
          }
        }
        for format in [PixelFormat.xrgb8888, .rgb565] {
          var model = ScreenModel()
          model.phase = .entering
          model.boxes = 6
          model.showsRevealToggle = true
          if keypad { model.keypad = OnScreenKeypadModel() }
          let rounds = 20
          var renderer = ScreenRenderer()
          var canvas = Canvas(width: w, height: h)
          let full = clock.measure {
            for _ in 0..<rounds {
              renderer.invalidate()
              renderer.draw(model, on: &canvas)
              flush(&canvas, format)
            }
          }
          var digit = Duration.zero
          for n in 0..<rounds {
            model.filled = n % 6
            model.cursor = n % 6
            renderer.draw(model, on: &canvas)
            flush(&canvas, format)
            model.filled = n % 6 + 1
            model.cursor = n % 6 + 1
            digit += clock.measure {
              renderer.draw(model, on: &canvas)
              flush(&canvas, format)
            }
          }
          func micros(_ d: Duration) -> Int {
            Int(d.components.seconds) * 1_000_000
              + Int(d.components.attoseconds / 1_000_000_000_000)
          }
          print(
            "redraw \(w)x\(h) \(keypad ? "keypad" : "no keypad") \(format.bitsPerPixel)bpp: full frame \(micros(full / rounds)) us, one digit \(micros(digit / rounds)) us, ratio \(Double(micros(digit)) / Double(max(1, micros(full))))"
          )
        }
      }
    }
  }
}

enum Environment {
  /// PINPADD_BENCHMARK=1 turns benchmarks on.
  static var benchmarks: Bool {
    guard let value = getenv("PINPADD_BENCHMARK") else { return false }
    return String(cString: value) == "1"
  }
}
