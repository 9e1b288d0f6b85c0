import PinpadCore

/// Writes small `evemu-record` recordings, for tests that replay them through
/// `--input replay:FILE`.
public enum EvemuWriter {
  /// A recording of a USB keypad pressing `keys` in order.
  ///
  /// Each key goes down `gapSeconds` after the previous key went down and comes up 50 ms
  /// later, or halfway to the next press when that is sooner, so keys never overlap.
  /// Every press and release is its own report: `EV_KEY` then `SYN_REPORT`. The
  /// recording opens with a lone `SYN_REPORT` at time 0 (a no-op for any reader) so the
  /// first key's gap is kept too: replay times count from the first event. Times are
  /// rounded to microseconds, as evemu writes them.
  /// `name` is the recorded device's name (its `N:` line).
  public static func keyPresses(
    _ keys: [(KeyCode, gapSeconds: Double)], name: String = "pinpadd test keypad"
  ) -> String {
    var text = """
      # EVEMU 1.3
      # Input device name: "\(name)"
      # Input device ID: bus 0x03 vendor 0x1234 product 0x5678 version 0x110
      N: \(name)
      I: 0003 1234 5678 0110
      ################################
      #      Waiting for events      #
      ################################

      """
    let pressTimes = keys.reduce(into: [Int64]()) { times, key in
      times.append((times.last ?? 0) + microseconds(key.gapSeconds))
    }
    text +=
      line(0, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)
      + "\t# ------------ SYN_REPORT (0) ---------- +0ms\n"
    var lastSyn: Int64 = 0
    for (index, (key, _)) in keys.enumerated() {
      let down = pressTimes[index]
      var hold: Int64 = 50_000
      if index + 1 < keys.count { hold = min(hold, (pressTimes[index + 1] - down) / 2) }
      for (time, value) in [(down, Int32(1)), (down + hold, 0)] {
        text += line(time, type: EvdevCode.evKey, code: key.rawValue, value: value)
        text += "\t# EV_KEY / \(pad(key.name, 20)) \(value)\n"
        text += line(time, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)
        text += "\t# ------------ SYN_REPORT (0) ---------- +\((time - lastSyn) / 1000)ms\n"
        lastSyn = time
      }
    }
    return text
  }

  private static func microseconds(_ seconds: Double) -> Int64 {
    guard seconds.isFinite, seconds > 0 else { return 0 }
    return Int64(seconds * 1e6 + 0.5)  // rounded; no libm in the core
  }

  /// `E: 0.000000 0001 0002 0001`, as evemu-record prints it (`%lu.%06u %04x %04x %04d`).
  private static func line(_ time: Int64, type: UInt16, code: UInt16, value: Int32) -> String {
    let fraction = String(time % 1_000_000)
    let sixDigits = String(repeating: "0", count: 6 - fraction.count) + fraction
    let digits = String(value.magnitude)
    let sign = value < 0 ? "-" : ""
    let zeros = String(repeating: "0", count: max(0, 4 - sign.count - digits.count))
    return
      "E: \(time / 1_000_000).\(sixDigits) \(hex4(type)) \(hex4(code)) \(sign)\(zeros)\(digits)"
  }

  private static func hex4(_ number: UInt16) -> String {
    let digits = String(number, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }
}
