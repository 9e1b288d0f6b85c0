import PinpadCore
import Testing

@testable import PinpadScreen

@Suite struct GoldenTests {
  @Test(arguments: Fixtures.states.map(\.0))
  func eachStateMatchesItsGoldenAtEverySize(_ state: String) throws {
    let model = Fixtures.states.first { $0.0 == state }!.1
    for (w, h) in Fixtures.sizes {
      let canvas = ScreenRenderer.frame(model, width: w, height: h)
      try Goldens.check(canvas, named: "\(state)-\(w)x\(h)")
    }
  }
}
