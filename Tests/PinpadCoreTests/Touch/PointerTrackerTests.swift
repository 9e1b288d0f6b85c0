import PinpadCore
import Testing

// evdev codes, spelled out as a kernel would send them.
private let evSyn: UInt16 = 0
private let evKey: UInt16 = 1
private let evRel: UInt16 = 2
private let evAbs: UInt16 = 3
private let btnLeft: UInt16 = 0x110
private let btnTouch: UInt16 = 0x14a

/// Feeds `(type, code, value)` events and returns the actions they produced.
private func feed(_ tracker: inout PointerTracker, _ events: [(UInt16, UInt16, Int32)])
  -> [PointerAction]
{
  events.compactMap { tracker.handle(type: $0.0, code: $0.1, value: $0.2) }
}

private let tablet = AxisRange(minimum: 0, maximum: 32767)

@Test func axisEndsLandOnTheFirstAndLastPixel() {
  #expect(tablet.pixel(0, pixels: 800) == 0)
  #expect(tablet.pixel(32767, pixels: 800) == 799)
  #expect(tablet.pixel(16384, pixels: 800) == 400)
}

@Test func axisValuesOutsideTheRangeAreClamped() {
  let range = AxisRange(minimum: 100, maximum: 4000)
  #expect(range.pixel(-5, pixels: 480) == 0)
  #expect(range.pixel(99, pixels: 480) == 0)
  #expect(range.pixel(9999, pixels: 480) == 479)
}

@Test func axisWithANegativeMinimumScalesFromIt() {
  let range = AxisRange(minimum: -1000, maximum: 1000)
  #expect(range.pixel(0, pixels: 1001) == 500)
  #expect(range.pixel(-1000, pixels: 1001) == 0)
}

@Test func degenerateAxisGivesPixelZero() {
  #expect(AxisRange(minimum: 5, maximum: 5).pixel(5, pixels: 800) == 0)
}

@Test func tabletClickPressesAndReleasesAtTheScaledPoint() {
  var t = PointerTracker(axes: .absolute(x: tablet, y: tablet), width: 800, height: 480)
  let actions = feed(
    &t,
    [
      (evAbs, 0, 32767), (evAbs, 1, 0), (evSyn, 0, 0),
      (evKey, btnLeft, 1), (evSyn, 0, 0),
      (evKey, btnLeft, 0), (evSyn, 0, 0),
    ])
  #expect(actions == [.pressed(x: 799, y: 0), .released(x: 799, y: 0)])
}

@Test func positionAndPressInOneReportGivePressAtTheNewPoint() {
  var t = PointerTracker(axes: .absolute(x: tablet, y: tablet), width: 320, height: 240)
  let actions = feed(
    &t, [(evAbs, 0, 0), (evAbs, 1, 32767), (evKey, btnTouch, 1), (evSyn, 0, 0)])
  #expect(actions == [.pressed(x: 0, y: 239)])
  #expect(t.isDown)
}

@Test func movesWhileUpAreSilentAndMovesWhileDownAreReported() {
  var t = PointerTracker(axes: .absolute(x: tablet, y: tablet), width: 800, height: 480)
  #expect(feed(&t, [(evAbs, 0, 100), (evSyn, 0, 0)]) == [])
  #expect(feed(&t, [(evKey, btnLeft, 1), (evSyn, 0, 0)]).count == 1)
  #expect(feed(&t, [(evAbs, 0, 32767), (evSyn, 0, 0)]) == [.moved(x: 799, y: 240)])
  #expect(feed(&t, [(evSyn, 0, 0)]) == [])
}

@Test func nothingHappensBeforeTheReportEnds() {
  var t = PointerTracker(axes: .absolute(x: tablet, y: tablet), width: 800, height: 480)
  #expect(feed(&t, [(evAbs, 0, 0), (evKey, btnLeft, 1)]) == [])
  #expect(!t.isDown)
}

@Test func mouseCursorStartsCentredAccumulatesAndStaysOnScreen() {
  var t = PointerTracker(axes: .relative, width: 800, height: 480)
  #expect(feed(&t, [(evRel, 0, 10), (evRel, 1, -20), (evSyn, 0, 0)]) == [])
  #expect((t.x, t.y) == (410, 220))
  _ = feed(&t, [(evRel, 0, -5000), (evRel, 1, 5000), (evSyn, 0, 0)])
  #expect((t.x, t.y) == (0, 479))
  let actions = feed(
    &t,
    [
      (evKey, btnLeft, 1), (evSyn, 0, 0), (evRel, 0, 3), (evSyn, 0, 0), (evKey, btnLeft, 0),
      (evSyn, 0, 0),
    ])
  #expect(actions == [.pressed(x: 0, y: 479), .moved(x: 3, y: 479), .released(x: 3, y: 479)])
}

@Test func multitouchFollowsTheFirstFingerOnly() {
  let range = AxisRange(minimum: 0, maximum: 1000)
  var t = PointerTracker(axes: .multitouch(x: range, y: range), width: 1001, height: 1001)
  let down = feed(
    &t,
    [
      (evAbs, 0x2f, 0), (evAbs, 0x39, 7), (evAbs, 0x35, 200), (evAbs, 0x36, 300),
      (evSyn, 0, 0),
    ])
  #expect(down == [.pressed(x: 200, y: 300)])
  // A second finger in slot 1 moves nothing.
  let second = feed(
    &t, [(evAbs, 0x2f, 1), (evAbs, 0x39, 8), (evAbs, 0x35, 900), (evAbs, 0x36, 900), (evSyn, 0, 0)])
  #expect(second == [])
  let up = feed(&t, [(evAbs, 0x2f, 0), (evAbs, 0x39, -1), (evSyn, 0, 0)])
  #expect(up == [.released(x: 200, y: 300)])
}

@Test func droppedEventsLetGoWithoutARelease() {
  var t = PointerTracker(axes: .absolute(x: tablet, y: tablet), width: 800, height: 480)
  _ = feed(&t, [(evKey, btnLeft, 1), (evSyn, 0, 0)])
  #expect(feed(&t, [(evSyn, 3, 0)]) == [])
  #expect(!t.isDown)
  #expect(feed(&t, [(evKey, btnLeft, 0), (evSyn, 0, 0)]) == [])
}
