import PinpadSystem
import Testing

/// The `at` of a code line (SPEC §4.2): UTC with milliseconds, written byte by byte.
@Suite struct ClockTests {
  @Test(arguments: [
    (Int64(0), "1970-01-01T00:00:00.000Z"),
    (1_764_504_000_123_456_789, "2025-11-30T12:00:00.123Z"),
    (951_782_400_999_000_000, "2000-02-29T00:00:00.999Z"),
    (-1, "1969-12-31T23:59:59.999Z"),
    (Int64.max, "2262-04-11T23:47:16.854Z"),
  ])
  func iso8601IsUTCWithMilliseconds(_ ns: Int64, _ text: String) {
    #expect(Clock.iso8601(wallNanoseconds: ns) == text)
  }

  @Test func theCurrentTimeHasTheShapeOfTheSpec() {
    let text = Clock.iso8601(wallNanoseconds: Clock.wallNanoseconds())
    let shape = text.map { $0.isNumber ? "9" : String($0) }.joined()
    #expect(shape == "9999-99-99T99:99:99.999Z", "\(text)")
  }
}
