import PinpadCore
import Testing

@testable import PinpadControlCore

/// The time rules, uses and doors of a codes-file line (docs/protocol.md, "Codes file:
/// options"), decided from an injected moment and time zone.
@Suite struct AccessRulesTests {
  static let pin = CodesFileTests.pin

  /// Europe/Berlin's rule (EU): CET +1, CEST +2 from the last Sunday of March 01:00 UTC
  /// to the last Sunday of October 01:00 UTC.
  static let berlin = LocalZone { epoch in
    let (year, _, _) = CivilCalendar.date(days: epoch / 86400)
    func lastSunday(_ month: Int) -> Int64 {
      let last = CivilCalendar.days(year: year, month: month, day: 31)
      return (last - Int64(CivilCalendar.weekday(days: last))) * 86400 + 3600
    }
    return epoch >= lastSunday(3) && epoch < lastSunday(10) ? 7200 : 3600
  }

  /// Seconds since the epoch of a UTC time.
  static func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ mi: Int) -> Int64 {
    WallTime(year: y, month: m, day: d, hour: h, minute: mi).secondsAsUTC
  }

  static func rules(_ options: String) throws -> AccessRules {
    let parsed = CodesFile.parse(Array("x:\(pin):\(options)".utf8), path: "codes")
    #expect(parsed.problems.isEmpty, "\(parsed.problems)")
    return try #require(parsed.entries.first).rules
  }

  @Test("the calendar: days, weekdays and back")
  func calendar() {
    #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
    #expect(CivilCalendar.weekday(days: 0) == 4)  // a Thursday
    let days = CivilCalendar.days(year: 2026, month: 3, day: 29)
    #expect(CivilCalendar.weekday(days: days) == 0)  // a Sunday
    #expect(CivilCalendar.date(days: days) == (2026, 3, 29))
    #expect(
      CivilCalendar.date(days: CivilCalendar.days(year: 2028, month: 2, day: 29)) == (2028, 2, 29))
  }

  @Test("the Berlin zone's wall clock through both nights of 2026")
  func berlinWallClock() {
    let zone = Self.berlin
    // Spring: 01:59 CET is followed by 03:00 CEST.
    #expect(
      zone.wallTime(Self.utc(2026, 3, 29, 0, 59)).time
        == WallTime(year: 2026, month: 3, day: 29, hour: 1, minute: 59))
    #expect(
      zone.wallTime(Self.utc(2026, 3, 29, 1, 0)).time
        == WallTime(year: 2026, month: 3, day: 29, hour: 3, minute: 0))
    // Autumn: 02:30 comes twice; the first is meant.
    let twice = WallTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30)
    #expect(zone.epoch(twice) == Self.utc(2026, 10, 25, 0, 30))
    #expect(zone.wallTime(Self.utc(2026, 10, 25, 1, 30)).time == twice)
    // A time the spring night skips is read with the winter offset (03:30 CEST).
    let skipped = WallTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)
    #expect(zone.epoch(skipped) == Self.utc(2026, 3, 29, 1, 30))
    #expect(
      zone.epoch(WallTime(year: 2026, month: 7, day: 1, hour: 12)) == Self.utc(2026, 7, 1, 10, 0))
  }

  @Test("from= and until=: local dates, until exclusive, a bare until through that day")
  func fromAndUntil() throws {
    let rules = try Self.rules("from=2026-12-24T0800,until=2026-12-31")
    let zone = Self.berlin
    // 08:00 Berlin in winter is 07:00 UTC.
    #expect(
      rules.denial(at: Self.utc(2026, 12, 24, 6, 59), zone: zone, place: "door") == .notYetValid)
    #expect(rules.denial(at: Self.utc(2026, 12, 24, 7, 0), zone: zone, place: "door") == nil)
    #expect(rules.denial(at: Self.utc(2026, 12, 31, 22, 59), zone: zone, place: "door") == nil)
    #expect(rules.denial(at: Self.utc(2026, 12, 31, 23, 0), zone: zone, place: "door") == .expired)
    #expect(rules.until == WallTime(year: 2027, month: 1, day: 1))
    let exact = try Self.rules("until=2026-12-31T1800")
    #expect(exact.denial(at: Self.utc(2026, 12, 31, 16, 59), zone: zone, place: "door") == nil)
    #expect(exact.denial(at: Self.utc(2026, 12, 31, 17, 0), zone: zone, place: "door") == .expired)
  }

  @Test("until= in the autumn night's repeated hour ends at its first passing")
  func untilInRepeatedHour() throws {
    let rules = try Self.rules("until=2026-10-25T0230")
    let zone = Self.berlin
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 0, 29), zone: zone, place: "d") == nil)
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 0, 30), zone: zone, place: "d") == .expired)
    // An hour later the clock shows 02:00-02:30 again: still expired.
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 1, 10), zone: zone, place: "d") == .expired)
  }

  @Test("hours=: weekday windows in wall-clock time")
  func weekdayWindows() throws {
    let rules = try Self.rules("hours=Mon-Fri@0700-1900+Sat@0900-1300")
    let zone = Self.berlin
    // 2026-12-07 is a Monday; Berlin is UTC+1.
    #expect(rules.denial(at: Self.utc(2026, 12, 7, 5, 59), zone: zone, place: "d") == .outsideHours)
    #expect(rules.denial(at: Self.utc(2026, 12, 7, 6, 0), zone: zone, place: "d") == nil)
    #expect(rules.denial(at: Self.utc(2026, 12, 7, 17, 59), zone: zone, place: "d") == nil)
    #expect(rules.denial(at: Self.utc(2026, 12, 7, 18, 0), zone: zone, place: "d") == .outsideHours)
    #expect(rules.denial(at: Self.utc(2026, 12, 12, 11, 0), zone: zone, place: "d") == nil)  // Sat 12:00
    #expect(
      rules.denial(at: Self.utc(2026, 12, 12, 12, 0), zone: zone, place: "d") == .outsideHours)
    #expect(
      rules.denial(at: Self.utc(2026, 12, 13, 11, 0), zone: zone, place: "d") == .outsideHours)  // Sun
    // Summer time: 07:00 Berlin is 05:00 UTC.
    #expect(rules.denial(at: Self.utc(2026, 7, 6, 5, 0), zone: zone, place: "d") == nil)
    #expect(rules.denial(at: Self.utc(2026, 7, 6, 4, 59), zone: zone, place: "d") == .outsideHours)
  }

  @Test("a window across midnight runs into the next day, also a wrapping day range")
  func acrossMidnight() throws {
    let rules = try Self.rules("hours=Fri-Sun@2200-0600")
    let zone = LocalZone.utc
    // 2026-12-04 is a Friday.
    #expect(
      rules.denial(at: Self.utc(2026, 12, 4, 21, 59), zone: zone, place: "d") == .outsideHours)
    #expect(rules.denial(at: Self.utc(2026, 12, 4, 22, 0), zone: zone, place: "d") == nil)
    #expect(rules.denial(at: Self.utc(2026, 12, 5, 5, 59), zone: zone, place: "d") == nil)  // Sat morning
    #expect(rules.denial(at: Self.utc(2026, 12, 5, 6, 0), zone: zone, place: "d") == .outsideHours)
    #expect(rules.denial(at: Self.utc(2026, 12, 7, 5, 0), zone: zone, place: "d") == nil)  // Mon morning after Sun
    #expect(rules.denial(at: Self.utc(2026, 12, 7, 23, 0), zone: zone, place: "d") == .outsideHours)  // Mon night
    #expect(rules.denial(at: Self.utc(2026, 12, 4, 3, 0), zone: zone, place: "d") == .outsideHours)  // Fri morning
  }

  @Test("a night window across the spring change: 7 hours of real time, by the wall clock")
  func springNight() throws {
    // 2026-03-28 is a Saturday; the clocks go forward the next night at 02:00.
    let rules = try Self.rules("hours=Sat@2200-0600")
    let zone = Self.berlin
    #expect(
      rules.denial(at: Self.utc(2026, 3, 28, 20, 59), zone: zone, place: "d") == .outsideHours)
    #expect(rules.denial(at: Self.utc(2026, 3, 28, 21, 0), zone: zone, place: "d") == nil)  // 22:00 CET
    #expect(rules.denial(at: Self.utc(2026, 3, 29, 0, 59), zone: zone, place: "d") == nil)  // 01:59 CET
    #expect(rules.denial(at: Self.utc(2026, 3, 29, 1, 0), zone: zone, place: "d") == nil)  // 03:00 CEST
    #expect(rules.denial(at: Self.utc(2026, 3, 29, 3, 59), zone: zone, place: "d") == nil)  // 05:59 CEST
    #expect(rules.denial(at: Self.utc(2026, 3, 29, 4, 0), zone: zone, place: "d") == .outsideHours)  // 06:00
  }

  @Test("a night window across the autumn change: 9 hours of real time, by the wall clock")
  func autumnNight() throws {
    // 2026-10-24 is a Saturday; the clocks go back the next night at 03:00.
    let rules = try Self.rules("hours=Sat@2200-0600")
    let zone = Self.berlin
    #expect(
      rules.denial(at: Self.utc(2026, 10, 24, 19, 59), zone: zone, place: "d") == .outsideHours)
    #expect(rules.denial(at: Self.utc(2026, 10, 24, 20, 0), zone: zone, place: "d") == nil)  // 22:00 CEST
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 0, 30), zone: zone, place: "d") == nil)  // 02:30 CEST
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 1, 30), zone: zone, place: "d") == nil)  // 02:30 CET
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 4, 59), zone: zone, place: "d") == nil)  // 05:59 CET
    #expect(rules.denial(at: Self.utc(2026, 10, 25, 5, 0), zone: zone, place: "d") == .outsideHours)  // 06:00 CET
  }

  @Test("a window in the hour the spring night skips, and one in the hour autumn repeats")
  func windowsInsideTheChange() throws {
    let zone = Self.berlin
    let skipped = try Self.rules("hours=Sun@0200-0300")
    // The wall clock never shows 02:xx that Sunday: 01:59 then 03:00.
    #expect(
      skipped.denial(at: Self.utc(2026, 3, 29, 0, 59), zone: zone, place: "d") == .outsideHours)
    #expect(
      skipped.denial(at: Self.utc(2026, 3, 29, 1, 0), zone: zone, place: "d") == .outsideHours)
    let repeated = try Self.rules("hours=Sun@0200-0300")
    // It shows 02:xx twice in autumn: both are in the window.
    #expect(repeated.denial(at: Self.utc(2026, 10, 25, 0, 15), zone: zone, place: "d") == nil)
    #expect(repeated.denial(at: Self.utc(2026, 10, 25, 1, 15), zone: zone, place: "d") == nil)
    #expect(
      repeated.denial(at: Self.utc(2026, 10, 25, 2, 0), zone: zone, place: "d") == .outsideHours)
  }

  @Test("doors=: keypad names and DEVICE/KEYPAD globs; disabled never grants")
  func doorsAndDisabled() throws {
    let rules = try Self.rules("doors=garage+site-*/front")
    #expect(rules.denial(at: 0, zone: .utc, place: "garage") == nil)
    #expect(rules.denial(at: 0, zone: .utc, place: "site-3/front") == nil)
    #expect(rules.denial(at: 0, zone: .utc, place: "site-3/back") == .wrongDoor)
    #expect(rules.denial(at: 0, zone: .utc, place: "front") == .wrongDoor)
    let off = try Self.rules("disabled,doors=garage")
    #expect(off.denial(at: 0, zone: .utc, place: "garage") == .disabled)
    #expect(try Self.rules("uses=3").uses == 3)
    #expect(try Self.rules("uses=3").denial(at: 0, zone: .utc, place: "x") == nil)
  }

  @Test("a line with every rule prints back as it was read")
  func roundTrip() throws {
    let text =
      "x:\(Self.pin):from=2026-12-24T0800,until=2026-12-31T1800,"
      + "hours=Mon-Fri@0700-1900+Sat@2200-0600+0000-2400,uses=1,doors=garage+a/*,disabled"
    let parsed = CodesFile.parse(Array(text.utf8), path: "codes")
    #expect(parsed.problems.isEmpty, "\(parsed.problems)")
    #expect(try #require(parsed.entries.first).text == text)
    // A bare until prints as the next day's midnight, which means the same.
    let bare = CodesFile.parse(Array("x:\(Self.pin):until=2026-12-31".utf8), path: "c")
    #expect(bare.entries.first?.text == "x:\(Self.pin):until=2027-01-01")
  }

  @Test("a bad rule is FILE:LINE and the line is skipped")
  func badRules() {
    let bad = [
      "from=2026-13-01", "from=2026-02-30", "until=2026-12-31T2460", "from=yesterday",
      "until=2026-01-01,from=2026-01-02", "hours=Mon-Fri", "hours=Mon@0700-0700",
      "hours=Xyz@0700-0800", "hours=Mon@2500-0100", "hours=", "uses=0", "uses=-1",
      "uses=99999999999", "uses", "doors=", "doors=a++b", "disabled=yes", "uses=1,uses=2",
    ]
    let text = (["ok:\(Self.pin)"] + bad.map { "p:\(Self.pin):\($0)" }).joined(separator: "\n")
    let parsed = CodesFile.parse(Array(text.utf8), path: "/etc/pinpadd/codes")
    #expect(parsed.entries.map(\.name) == ["ok"])
    #expect(parsed.problems.count == bad.count, "\(parsed.problems)")
    for (index, problem) in parsed.problems.enumerated() {
      #expect(problem.hasPrefix("/etc/pinpadd/codes:\(index + 2): p: "), "\(problem)")
      #expect(!problem.contains(Self.pin))
    }
  }

  @Test("every reason word of docs/protocol.md, Socket: denial reasons")
  func reasonWords() {
    #expect(
      DenialReason.allCases.map(\.rawValue) == [
        "unknown", "expired", "not_yet_valid", "outside_hours", "used_up", "wrong_door",
        "disabled", "locked", "unavailable", "stale",
      ])
  }
}

/// Which line decides a code, and its outcome (docs/protocol.md, "Codes file: matching").
@Suite struct AccessDecisionTests {
  static let pin = CodesFileTests.pin

  static func entries(_ lines: [String]) -> [CodesFile.Entry] {
    CodesFile.parse(Array(lines.joined(separator: "\n").utf8), path: "codes").entries
  }

  @Test("lines that may grant now are checked first, each group in file order")
  func openLinesFirst() {
    let entries = Self.entries([
      "a:\(Self.pin):doors=back", "b:\(Self.pin):until=1970-01-01", "c:\(Self.pin)",
      "d:\(Self.pin):doors=front",
    ])
    let candidates = entries.indices.map { CodesLookup.Candidate(index: $0, checks: [.pin]) }
    let ordered = AccessDecision.ordered(
      candidates, entries: entries, at: 86400 * 365, zone: .utc, place: "front")
    #expect(ordered.map(\.index) == [2, 3, 0, 1])
  }

  @Test("the outcome: unknown, a rule's reason, or a grant that spends a use")
  func outcomes() {
    let entries = Self.entries([
      "guest:\(Self.pin):uses=1", "old:\(Self.pin):until=1970-01-02", "off:\(Self.pin):disabled",
    ])
    let at: Int64 = 86400 * 10
    #expect(
      AccessDecision.outcome(matched: nil, entries: entries, at: at, zone: .utc, place: "d")
        == .deny(.unknown, index: nil))
    #expect(
      AccessDecision.outcome(matched: 0, entries: entries, at: at, zone: .utc, place: "d")
        == .grant(index: 0, uses: 1))
    #expect(
      AccessDecision.outcome(matched: 1, entries: entries, at: at, zone: .utc, place: "d")
        == .deny(.expired, index: 1))
    #expect(
      AccessDecision.outcome(matched: 2, entries: entries, at: at, zone: .utc, place: "d")
        == .deny(.disabled, index: 2))
  }
}
