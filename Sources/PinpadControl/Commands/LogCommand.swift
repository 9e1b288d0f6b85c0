import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl log [--since TIME] [--until TIME] [--person NAME] [--door NAME] [--json]
/// [--keep-days N] [--state-dir DIR]` (pinpadctl(1), ACCESS LOG): the decisions of
/// `serve`, oldest first, as a table or one JSON object a line. TIME is a local
/// `YYYY-MM-DD`, `YYYY-MM-DDTHHMM`, or `Nd`, `Nh`, `Nm` ago. `--keep-days N` first
/// deletes what is older than N days.
enum LogCommand {
  static let usage =
    "log [--since TIME] [--until TIME] [--person NAME] [--door NAME] [--json]"
    + " [--keep-days N] [--state-dir DIR]"

  struct Options: Equatable {
    var filter = AccessLog.Filter()
    var json = false
    var keepDays: Int? = nil
    var stateDirectory: String? = nil

    /// The words after `log`; TIMEs are read against `now` (ms since the epoch) in `zone`.
    static func parse(_ arguments: [String], now: Int64, zone: LocalZone) throws(UsageError)
      -> Options
    {
      var options = Options()
      var words = Arguments(arguments)
      func time(_ text: String) throws(UsageError) -> Int64 {
        do { return try LogCommand.time(text, now: now, zone: zone) } catch {
          throw UsageError("log: \(error)")
        }
      }
      while let word = words.next() {
        switch word.name {
        case "--since": options.filter.since = try time(try words.value(of: word))
        case "--until": options.filter.until = try time(try words.value(of: word))
        case "--person": options.filter.person = try words.value(of: word)
        case "--door": options.filter.door = try words.value(of: word)
        case "--json":
          try words.flag(word)
          options.json = true
        case "--keep-days":
          options.keepDays = try ServeCommand.keepDaysValue(try words.value(of: word))
        case "--state-dir": options.stateDirectory = try words.value(of: word)
        default: throw UsageError("\(usage) (unexpected \(word.text))")
        }
      }
      return options
    }

    /// Every combination of the options is valid: a window that selects nothing prints
    /// nothing.
    func validate() throws(UsageError) {}
  }

  /// Prints what `options` selects; errors are `ControlError` (exit 69).
  static func run(_ options: Options, now: Int64) throws -> Int32 {
    let (filter, json, keepDays, stateDirectory) = (
      options.filter, options.json, options.keepDays, options.stateDirectory
    )
    let directory = ControllerStateDirectory.resolve(stateDirectory)
    guard FileSystem.exists(directory + "/" + AccessLog.fileName) else {
      throw ControlError(
        "\(directory)/\(AccessLog.fileName): no access log (serve has not run here; --state-dir DIR)"
      )
    }
    let log: AccessLog
    do { log = try AccessLog(directory: directory) } catch { throw ControlError(error.description) }
    if let keepDays {
      do {
        let dropped = try log.prune(before: now - Int64(keepDays) * DecisionRecorder.dayMs)
        ControlMain.printError(
          "pinpadctl log: deleted \(dropped) decisions older than \(keepDays) days")
      } catch { throw ControlError(error.description) }
    }
    var out = OutputBuffer()
    if !json {
      out.append(row(["TIME", "DOOR", "PERSON", "RESULT", "REASON"]))
    }
    do {
      try log.query(filter) { record in
        out.append(json ? jsonLine(record) : tableLine(record, zone: .system))
      }
    } catch { throw ControlError(error.description) }
    out.flush()
    return 0
  }

  /// A TIME of `--since`/`--until` in ms since the epoch.
  static func time(_ text: String, now: Int64, zone: LocalZone) throws(ControlError) -> Int64 {
    let bytes = Array(text.utf8)
    if let unit = bytes.last, [0x64, 0x68, 0x6D].contains(unit), bytes.count >= 2,
      let n = Int64(String(decoding: bytes.dropLast(), as: UTF8.self)), n >= 0, n < 1_000_000
    {
      let ms: Int64 = unit == 0x64 ? 86_400_000 : unit == 0x68 ? 3_600_000 : 60_000
      return now - n * ms
    }
    guard let wall = WallTime(text: bytes) else {
      throw ControlError("\(text) is not a time: YYYY-MM-DD, YYYY-MM-DDTHHMM, or Nd, Nh, Nm ago")
    }
    return zone.epoch(wall) * 1000
  }

  static func jsonLine(_ record: AccessLog.Record) -> String {
    var members: [(String, JSONValue)] = [
      ("at", .string(isoUTC(record.at))), ("keypad", .string(record.keypad)),
    ]
    if let device = record.device { members.append(("device", .string(device))) }
    members.append(("person", record.person.map { .string($0) } ?? .null))
    members.append(("result", .string(record.granted ? "granted" : "denied")))
    if let reason = record.reason { members.append(("reason", .string(reason))) }
    members.append(("duress", .bool(record.duress)))
    // A door's own decision (docs/protocol.md, "Replica: the door's log") has no attempt id.
    if record.local {
      members.append(("decided", .string("local")))
      if let log = record.logID { members.append(("log", .string(log))) }
      if let seq = record.seq { members.append(("seq", .number(Double(seq)))) }
    } else {
      members.append(("id", .string(record.attempt)))
    }
    return JSONValue.object(members).serialized + "\n"
  }

  static func tableLine(_ record: AccessLog.Record, zone: LocalZone) -> String {
    let epoch = record.at >= 0 ? record.at / 1000 : (record.at - 999) / 1000
    let (wall, _, second) = zone.wallTime(epoch)
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let time =
      "\(wall.year)-\(two(wall.month))-\(two(wall.day)) \(two(wall.hour)):\(two(wall.minute)):\(two(second))"
    let door = record.device.map { "\($0)/\(record.keypad)" } ?? record.keypad
    let result = (record.granted ? "granted" : "denied") + (record.duress ? " (duress)" : "")
    return row([time, door, record.person ?? "-", result, record.reason ?? "-"])
  }

  static func row(_ fields: [String]) -> String {
    let widths = [19, 20, 20, 16]
    var line = ""
    for (index, field) in fields.enumerated() {
      let cleaned = UntrustedText.sanitized(field, maxBytes: 64)
      line += cleaned
      if index < widths.count {
        line += String(repeating: " ", count: max(1, widths[index] + 2 - cleaned.count))
      }
    }
    while line.last == " " { line.removeLast() }
    return line + "\n"
  }

  /// `2026-12-01T12:00:00.000Z`.
  static func isoUTC(_ ms: Int64) -> String {
    let epoch = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
    let (wall, _, second) = LocalZone.utc.wallTime(epoch)
    func pad(_ n: Int, _ width: Int) -> String {
      let digits = String(n)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(pad(wall.year, 4))-\(pad(wall.month, 2))-\(pad(wall.day, 2))T\(pad(wall.hour, 2)):"
      + "\(pad(wall.minute, 2)):\(pad(second, 2)).\(pad(Int(ms - epoch * 1000), 3))Z"
  }
}

/// Standard output in large writes (a million rows must not be a million writes).
struct OutputBuffer {
  private var bytes: [UInt8] = []

  mutating func append(_ text: String) {
    bytes += text.utf8
    if bytes.count >= 1 << 16 { flush() }
  }

  mutating func flush() {
    try? FileDescriptor.standardOutput.writeAll(bytes)
    bytes.removeAll(keepingCapacity: true)
  }
}
