import PinpadCore
import Testing

/// The entry time (`EntryClock`) as a value: the monotonic clock, pushed ahead by stamps.
@Suite struct EntryClockTests {
  static let t = Instant(nanoseconds: 10_000_000_000)

  @Test("without stamps ahead, the entry time is the monotonic clock")
  func followsTheClock() {
    var clock = EntryClock()
    #expect(clock.time(at: Self.t) == Self.t)
    #expect(clock.advance(to: Self.t - .seconds(1), monotonic: Self.t + .seconds(1)) == Self.t)
    #expect(clock.lead == 0, "an old stamp moves nothing")
    #expect(clock.time(at: Self.t + .seconds(2)) == Self.t + .seconds(2))
    #expect(clock.monotonic(Self.t + .seconds(5)) == Self.t + .seconds(5))
  }

  @Test("a stamp ahead moves the lead; the entry time keeps running from there")
  func stampAhead() {
    var clock = EntryClock()
    #expect(clock.advance(to: Self.t + .seconds(20), monotonic: Self.t) == Self.t + .seconds(20))
    #expect(clock.lead == 20_000_000_000)
    #expect(clock.time(at: Self.t + .seconds(1)) == Self.t + .seconds(21))
    #expect(clock.monotonic(Self.t + .seconds(25)) == Self.t + .seconds(5))
  }

  @Test("the entry time never goes back, whatever the clock says")
  func neverBack() {
    var clock = EntryClock()
    _ = clock.time(at: Self.t)
    #expect(clock.time(at: Self.t - .seconds(3)) == Self.t)
    #expect(clock.now == Self.t)
  }
}
