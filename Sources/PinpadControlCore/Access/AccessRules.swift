import PinpadCore

/// Why the controller denies a code (docs/protocol.md, "Socket: denial reasons"): the
/// `reason` of a denied verdict.
public enum DenialReason: String, CaseIterable, Equatable, Sendable {
  case unknown
  case expired
  case notYetValid = "not_yet_valid"
  case outsideHours = "outside_hours"
  case usedUp = "used_up"
  case wrongDoor = "wrong_door"
  case disabled
  case locked
  case unavailable
  /// A door deciding from its replica has heard nothing from the site for longer than
  /// `[MQTT] MaxReplicaAgeSec=`.
  case stale
}

/// A local wall-clock time to the minute (a `from=`/`until=` bound), compared in order.
public struct WallTime: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var year: Int
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int

  public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0) {
    self.year = year
    self.month = month
    self.day = day
    self.hour = hour
    self.minute = minute
  }

  var key: Int64 {
    (Int64(year) * 10000 + Int64(month) * 100 + Int64(day)) * 10000 + Int64(hour * 100 + minute)
  }
  public static func < (a: WallTime, b: WallTime) -> Bool { a.key < b.key }

  /// The same wall time as if the zone were UTC: seconds since 1970-01-01T00:00.
  public var secondsAsUTC: Int64 {
    CivilCalendar.days(year: year, month: month, day: day) * 86400
      + Int64(hour * 3600 + minute * 60)
  }

  /// The day after this one, at 00:00.
  public var nextDay: WallTime {
    let (y, m, d) = CivilCalendar.date(
      days: CivilCalendar.days(year: year, month: month, day: day) + 1)
    return WallTime(year: y, month: m, day: d)
  }

  /// `YYYY-MM-DD` or `YYYY-MM-DDTHHMM` (the codes file's form); nil when not valid.
  public init?(text: some Collection<UInt8>) {
    let bytes = Array(text)
    guard bytes.count == 10 || bytes.count == 15, bytes[4] == 0x2D, bytes[7] == 0x2D else {
      return nil
    }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (0x30...0x39).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      return value
    }
    guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), y >= 1970,
      (1...12).contains(m), (1...CivilCalendar.daysIn(year: y, month: m)).contains(d)
    else { return nil }
    self.init(year: y, month: m, day: d)
    if bytes.count == 15 {
      guard bytes[10] == 0x54, let h = number(11..<13), let mi = number(13..<15), h < 24, mi < 60
      else { return nil }
      hour = h
      minute = mi
    }
  }

  /// `YYYY-MM-DD`, with `THHMM` unless it is midnight.
  public var description: String {
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let date = "\(year)-\(two(month))-\(two(day))"
    return hour == 0 && minute == 0 ? date : date + "T" + two(hour) + two(minute)
  }
}

/// Proleptic Gregorian calendar arithmetic (days since 1970-01-01), after H. Hinnant's
/// `days_from_civil` / `civil_from_days`.
public enum CivilCalendar {
  public static func days(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let m = Int64(month)
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  public static func date(days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
  }

  /// 0 = Sunday ... 6 = Saturday.
  public static func weekday(days: Int64) -> Int {
    let w = (days + 4) % 7
    return Int(w >= 0 ? w : w + 7)
  }

  public static func daysIn(year: Int, month: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}

/// The controller's time zone, as the one thing the rules need from it: a UTC offset
/// (seconds east) for a moment (seconds since the epoch). The shell gives it
/// localtime_r(3)'s `tm_gmtoff` (TZ and the system's tz database); tests a fixed rule.
public struct LocalZone: Sendable {
  public var offset: @Sendable (Int64) -> Int64

  public init(offset: @escaping @Sendable (Int64) -> Int64) { self.offset = offset }

  public static let utc = LocalZone(offset: { _ in 0 })

  /// The local wall time at `epoch`, with its weekday (0 = Sunday).
  public func wallTime(_ epoch: Int64) -> (time: WallTime, weekday: Int, second: Int) {
    let local = epoch + offset(epoch)
    let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
    let inDay = Int(local - days * 86400)
    let (y, m, d) = CivilCalendar.date(days: days)
    return (
      WallTime(year: y, month: m, day: d, hour: inDay / 3600, minute: inDay / 60 % 60),
      CivilCalendar.weekday(days: days), inDay % 60
    )
  }

  /// The moment the wall clock first shows `wall`. A time the clock skips (the spring
  /// night's gap) is read with the offset before the change, as mktime(3) does (02:30
  /// is 03:30 summer time); one it shows twice (the autumn night) is the first.
  public func epoch(_ wall: WallTime) -> Int64 {
    let asUTC = wall.secondsAsUTC
    let before = offset(asUTC - 86400)
    let after = offset(asUTC + 86400)
    let candidates = Set([asUTC - before, asUTC - after]).sorted()
    for candidate in candidates where wallTime(candidate).time == wall {
      return candidate
    }
    // In a gap: the offset before the change, which lands as far past the gap.
    return asUTC - before
  }
}

/// A weekly window of local wall-clock time: on the days in `days` (0 = Sunday), from
/// `start` to `end` minutes after midnight; an `end` not after `start` runs into the
/// next day (2200-0600).
public struct WeeklyWindow: Equatable, Sendable {
  public var days: Set<Int>
  public var start: Int
  public var end: Int

  public init(days: Set<Int>, start: Int, end: Int) {
    self.days = days
    self.start = start
    self.end = end
  }

  public func contains(weekday: Int, minute: Int) -> Bool {
    if start < end { return days.contains(weekday) && minute >= start && minute < end }
    // Across midnight: the evening of a listed day, or the morning after one.
    return (days.contains(weekday) && minute >= start)
      || (days.contains((weekday + 6) % 7) && minute < end)
  }

  static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

  /// `DAYS@HHMM-HHMM` where DAYS is `Mon`, `Mon-Fri` (may wrap: `Fri-Mon`) or left out
  /// with its `@` (every day); 2400 may end a window.
  static func parse(_ text: ArraySlice<UInt8>) -> WeeklyWindow? {
    let parts = text.split(separator: 0x40, maxSplits: 1, omittingEmptySubsequences: false)
    var days = Set(0..<7)
    if parts.count == 2 {
      let range = parts[0].split(separator: 0x2D, omittingEmptySubsequences: false)
      let names = range.map { String(decoding: $0, as: UTF8.self) }
      guard (1...2).contains(names.count) else { return nil }
      let indices = names.compactMap { name in dayNames.firstIndex(of: name) }
      guard indices.count == names.count else { return nil }
      days = []
      var day = indices[0]
      let last = indices.last!
      while true {
        days.insert(day)
        if day == last { break }
        day = (day + 1) % 7
      }
    }
    let times = parts.last!.split(separator: 0x2D, omittingEmptySubsequences: false)
    guard times.count == 2, let start = minutes(times[0], allowing2400: false),
      let end = minutes(times[1], allowing2400: true), start != end % 1440 || end == 1440
    else { return nil }
    if start == 0 && end == 1440 { return WeeklyWindow(days: days, start: 0, end: 1440) }
    return WeeklyWindow(days: days, start: start, end: end % 1440)
  }

  private static func minutes(_ text: ArraySlice<UInt8>, allowing2400: Bool) -> Int? {
    guard text.count == 4, text.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    let digits = text.map { Int($0 - 0x30) }
    let hour = digits[0] * 10 + digits[1]
    let minute = digits[2] * 10 + digits[3]
    if allowing2400, hour == 24, minute == 0 { return 1440 }
    guard hour < 24, minute < 60 else { return nil }
    return hour * 60 + minute
  }

  /// The window as written (`Mon-Fri@0700-1900`).
  public var text: String {
    func hhmm(_ m: Int) -> String {
      let h = m / 60
      let mi = m % 60
      return (h < 10 ? "0\(h)" : "\(h)") + (mi < 10 ? "0\(mi)" : "\(mi)")
    }
    let time = hhmm(start) + "-" + hhmm(end)
    if days.count == 7 { return time }
    // The shortest run: start after a day that is not listed.
    let first = (0..<7).first { days.contains($0) && !days.contains(($0 + 6) % 7) } ?? 0
    var last = first
    while days.contains((last + 1) % 7), (last + 1) % 7 != first { last = (last + 1) % 7 }
    let name =
      first == last ? Self.dayNames[first] : Self.dayNames[first] + "-" + Self.dayNames[last]
    return name + "@" + time
  }
}

/// The rules of one codes-file line (docs/protocol.md, "Codes file: options") other than
/// its secrets: when it is valid, on which doors, how often. `uses` is counted by the
/// caller's database; everything else is decided here from a moment, a time zone and a
/// place.
public struct AccessRules: Equatable, Sendable {
  public var from: WallTime? = nil
  /// Exclusive: the first minute the line no longer grants.
  public var until: WallTime? = nil
  public var hours: [WeeklyWindow] = []
  public var uses: Int? = nil
  /// Keypad names or DEVICE/KEYPAD globs; empty: every door.
  public var doors: [Glob] = []
  public var disabled = false

  public init() {}

  /// Why the line may not grant at `epoch` (seconds) on `place`, nil when it may (uses
  /// aside). In order: disabled, wrong_door, not_yet_valid, expired, outside_hours.
  public func denial(at epoch: Int64, zone: LocalZone, place: String) -> DenialReason? {
    if disabled { return .disabled }
    if !doors.isEmpty, !doors.contains(where: { $0.matches(place) }) { return .wrongDoor }
    if let from, epoch < zone.epoch(from) { return .notYetValid }
    if let until, epoch >= zone.epoch(until) { return .expired }
    if !hours.isEmpty {
      let (wall, weekday, _) = zone.wallTime(epoch)
      let minute = wall.hour * 60 + wall.minute
      if !hours.contains(where: { $0.contains(weekday: weekday, minute: minute) }) {
        return .outsideHours
      }
    }
    return nil
  }

  /// The options as written in a codes-file line, in a fixed order.
  public var options: [String] {
    var out: [String] = []
    if let from { out.append("from=\(from)") }
    if let until { out.append("until=\(until)") }
    if !hours.isEmpty { out.append("hours=" + hours.map(\.text).joined(separator: "+")) }
    if let uses { out.append("uses=\(uses)") }
    if !doors.isEmpty { out.append("doors=" + doors.map(\.pattern).joined(separator: "+")) }
    if disabled { out.append("disabled") }
    return out
  }

  public static let maxUses = 1_000_000_000

  /// Sets the rule option `key`=`value` (nil: no `=`); nil when `key` is not a rule
  /// option, else what is wrong ("" when it is fine).
  public mutating func apply(_ key: String, _ value: ArraySlice<UInt8>?) -> String? {
    func once(_ given: Bool) -> String? { given ? "\(key)= is given twice" : nil }
    switch key {
    case "disabled":
      guard value == nil else { return "disabled takes no value" }
      if disabled { return "disabled is given twice" }
      disabled = true
      return ""
    case "from", "until", "hours", "uses", "doors": break
    default: return nil
    }
    guard let value, !value.isEmpty else { return "\(key) needs =VALUE" }
    switch key {
    case "from", "until":
      guard var time = WallTime(text: value) else {
        return "\(key)= is not a date YYYY-MM-DD or YYYY-MM-DDTHHMM"
      }
      if key == "from" {
        if let problem = once(from != nil) { return problem }
        from = time
      } else {
        if let problem = once(until != nil) { return problem }
        // A bare date means through that day.
        if value.count == 10 { time = time.nextDay }
        until = time
      }
      if let from, let until, until <= from { return "until= is not after from=" }
    case "hours":
      if let problem = once(!hours.isEmpty) { return problem }
      for part in value.split(separator: 0x2B, omittingEmptySubsequences: false) {
        guard let window = WeeklyWindow.parse(part) else {
          return "hours= is not DAYS@HHMM-HHMM[+...] (e.g. Mon-Fri@0700-1900+Sat@0900-1300)"
        }
        hours.append(window)
      }
    case "uses":
      if let problem = once(uses != nil) { return problem }
      guard value.count <= 10, value.allSatisfy({ (0x30...0x39).contains($0) }),
        let n = Int(String(decoding: value, as: UTF8.self)), (1...Self.maxUses).contains(n)
      else { return "uses= is not a number from 1 to \(Self.maxUses)" }
      uses = n
    default:  // doors
      if let problem = once(!doors.isEmpty) { return problem }
      for part in value.split(separator: 0x2B, omittingEmptySubsequences: false) {
        guard !part.isEmpty, part.count <= 256,
          part.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x3A && $0 != 0x2C })
        else { return "doors= is not NAME+NAME (keypad names or DEVICE/KEYPAD globs)" }
        doors.append(Glob(String(decoding: part, as: UTF8.self)))
      }
    }
    return ""
  }
}
