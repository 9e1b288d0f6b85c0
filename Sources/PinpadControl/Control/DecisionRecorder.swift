import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

extension LocalZone {
  /// The controller's time zone: TZ and the system's tz database, through localtime_r(3)'s
  /// `tm_gmtoff`.
  static let system: LocalZone = {
    tzset()
    return LocalZone { epoch in
      var seconds = time_t(epoch)
      var parts = tm()
      guard localtime_r(&seconds, &parts) != nil else { return 0 }
      return Int64(parts.tm_gmtoff)
    }
  }()
}

/// Commits each decision of `serve` to the access log (`AccessLog`) before its verdict
/// is sent, spending a use for a grant of a `uses=N` line. A decision that cannot be
/// committed becomes a denial with reason `unavailable`: one error line when that
/// starts, one when recording works again. Prunes the log to `keepDays` now and then.
///
/// Denials the lockout gives unchecked (`locked`) cost an attacker nothing, so a flood
/// of them must not fill the disk: the first `lockedBurst` at once are recorded, then
/// one a second; the others are answered but not recorded, and the next one recorded
/// says how many were left out (one line in serve's log).
final class DecisionRecorder {
  let log: AccessLog
  let zone: LocalZone
  let keepDays: Int
  private let say: (String) -> Void
  private let clock: () -> Int64
  private var failing = false
  private var lastPrune: Int64? = nil
  /// GCRA of the recorded `locked` denials: when the bucket would be full again.
  private var lockedDue: Int64? = nil
  private var lockedSkipped = 0

  static let lockedBurst = 100
  static let lockedIntervalMs: Int64 = 1000

  static let defaultKeepDays = 365
  static let dayMs: Int64 = 86_400_000

  init(
    log: AccessLog, keepDays: Int = DecisionRecorder.defaultKeepDays,
    zone: LocalZone = .system, say: @escaping (String) -> Void,
    clock: @escaping () -> Int64 = { Clock.wallNanoseconds() / 1_000_000 }
  ) {
    self.log = log
    self.zone = zone
    self.keepDays = keepDays
    self.say = say
    self.clock = clock
  }

  /// Now, in milliseconds since the epoch.
  func nowMs() -> Int64 { clock() }

  /// Records `decision` (made at `at` ms) and returns the verdict to send.
  func settle(
    _ decision: ControllerService.Decision, at: Int64, device: String?, keypad: String,
    attempt: String
  ) -> ControllerService.Decision {
    let record = AccessLog.Record(
      at: at, device: device, keypad: keypad, person: decision.match?.name ?? decision.person,
      granted: decision.match != nil, reason: decision.match == nil ? decision.reason : nil,
      duress: decision.match?.duress ?? false, attempt: attempt)
    if decision.reason == DenialReason.locked.rawValue, decision.match == nil {
      let due = max(lockedDue ?? at, at)
      if due - at >= Self.lockedIntervalMs * Int64(Self.lockedBurst) {
        lockedSkipped += 1
        return decision
      }
      lockedDue = due + Self.lockedIntervalMs
      if lockedSkipped > 0 {
        say("\(lockedSkipped) denials while locked were answered but not recorded (a flood)")
        lockedSkipped = 0
      }
    }
    let recorded: AccessLog.Record
    do {
      recorded = try log.commit(record, uses: decision.uses)
    } catch {
      if !failing {
        say("error: \(error); every code is denied (reason unavailable) until it can be recorded")
        failing = true
      }
      return ControllerService.Decision(
        match: nil, reason: DenialReason.unavailable.rawValue, person: record.person)
    }
    if failing {
      say("\(log.path): decisions are recorded again")
      failing = false
    }
    pruneNow(at)
    guard recorded.granted else {
      return ControllerService.Decision(
        match: nil, reason: recorded.reason, person: recorded.person)
    }
    return decision
  }

  /// Drops what is older than `keepDays`, at most once an hour.
  func pruneNow(_ now: Int64) {
    if let lastPrune, now - lastPrune < 3_600_000, now >= lastPrune { return }
    lastPrune = now
    _ = try? log.prune(before: now - Int64(keepDays) * Self.dayMs)
  }
}
