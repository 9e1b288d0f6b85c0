import PinpadControlCore
import PinpadCore

/// A decision core with a clock the test moves and a stand-in for crypt(3): a hash
/// `$plain$SECRET` matches SECRET. The people come from a real codes file's text.
final class CoreFixture {
  /// 2026-06-01 12:00 UTC (a Monday).
  static let noon: Int64 =
    (CivilCalendar.days(year: 2026, month: 6, day: 1) * 86400 + 12 * 3600)
    * 1000

  static let codesText = """
    alice:$plain$1111:card=$plain$00A
    bob:$plain$2222
    carol:-:card=$plain$00C
    dave:$plain$9999:duress
    guest:$plain$3333:uses=1
    garage:$plain$4444:doors=garage+site-*/back
    old:$plain$5555:until=2020-01-31
    future:$plain$6666:from=2099-01-01T0800
    off:$plain$7777:disabled
    day:$plain$8888:hours=1100-1300
    night:$plain$8989:hours=2200-0600
    early:$plain$1212:hours=0000-0100
    late:$plain$1212
    erin:$plain$1111

    """

  static let entries: [CodesFile.Entry] = {
    let parsed = CodesFile.parse(Array(codesText.utf8), path: "codes")
    precondition(parsed.problems.isEmpty, "\(parsed.problems)")
    return parsed.entries
  }()

  var now: Moment
  /// The candidates of each crypt(3) call, in the order given (entry indices).
  var checked: [[Int]] = []
  var zeroed = 0
  var core: DecisionCore! = nil
  var people = People(entries: CoreFixture.entries)

  init(
    rules: LockoutConfig = LockoutConfig(), global: ControllerLockout.GlobalBound = .standard,
    states: [String: LockoutState] = [:], at wallMs: Int64 = CoreFixture.noon
  ) {
    now = Moment(wallMs: wallMs, mono: Instant(nanoseconds: 1_000_000_000_000))
    core = DecisionCore(
      lockout: ControllerLockout(rules: rules, global: global, states: states), zone: .utc,
      clock: { [unowned self] in self.now },
      firstMatch: { [unowned self] candidates, entries, code, card in
        self.checked.append(candidates.map(\.index))
        return Self.plainMatch(candidates, entries, code, card)
      },
      zero: { [unowned self] pointer, count in
        self.zeroed += 1
        DecisionCore.plainZero(pointer, count)
      })
  }

  static func plainMatch(
    _ candidates: [CodesLookup.Candidate], _ entries: [CodesFile.Entry],
    _ code: UnsafeBufferPointer<UInt8>?, _ card: UnsafeBufferPointer<UInt8>?
  ) -> Int? {
    func matches(_ hash: [UInt8]?, _ secret: UnsafeBufferPointer<UInt8>?) -> Bool {
      guard let hash, let secret else { return false }
      return hash == Array("$plain$".utf8) + Array(secret)
    }
    return candidates.first { candidate in
      candidate.checks.allSatisfy { check in
        switch check {
        case .pin: matches(entries[candidate.index].pinHash, code)
        case .card: matches(entries[candidate.index].cardHash, card)
        }
      }
    }?.index
  }

  func advance(_ duration: Duration) {
    now.mono = now.mono + duration
    now.wallMs += duration.nanoseconds / 1_000_000
  }

  struct Outcome {
    var pending: DecisionCore.Pending
    var decision: Decision
    var effects: [DecisionCore.Effect]
    /// Whether the code and card buffers were all zeros afterwards.
    var wiped: Bool

    var said: [String] {
      (pending.effects + effects).compactMap {
        if case .say(let line) = $0 { return line.plain }
        return nil
      }
    }
    var saved: [String: LockoutState]? {
      effects.lazy.compactMap {
        if case .saveLockout(let states) = $0 { return states }
        return nil
      }.first
    }
    var record: DecisionCore.Record? {
      pending.effects.lazy.compactMap {
        if case .record(let record) = $0 { return record }
        return nil
      }.first
    }
  }

  /// Decides and settles one attempt; `recorded` is what the access log says.
  @discardableResult
  func attempt(
    code: String? = nil, card: String? = nil, keypad: String = "door", device: String? = nil,
    id: String = "a1", recorded: DecisionCore.Recorded = .kept
  ) -> Outcome {
    var codeBytes = Array((code ?? "").utf8)
    var cardBytes = Array((card ?? "").utf8)
    let place = device.map { "pinpadd/\($0)/\(keypad)" } ?? keypad
    let pending = codeBytes.withUnsafeMutableBufferPointer { codeBuffer in
      cardBytes.withUnsafeMutableBufferPointer { cardBuffer in
        core.decide(
          Attempt(
            id: id, device: device, keypad: keypad, place: place,
            code: code == nil ? nil : codeBuffer, card: card == nil ? nil : cardBuffer),
          people: people)
      }
    }
    let settled = core.settle(pending, recorded)
    return Outcome(
      pending: pending, decision: settled.decision, effects: settled.effects,
      wiped: (codeBytes + cardBytes).allSatisfy { $0 == 0 })
  }
}
