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

/// Commits each decision of `serve` (`DecisionCore`'s `.record`) to the access log
/// (`AccessLog`) before its verdict is sent, spending a use for a grant of a `uses=N`
/// line. A decision that cannot be committed becomes a denial with reason `unavailable`:
/// one error line when that starts, one when recording works again. Prunes the log to
/// `keepDays` now and then.
///
/// Denials the lockout gives unchecked (`locked`) cost an attacker nothing, so a flood
/// of them must not fill the disk: the first `lockedBurst` at once are recorded, then
/// one a second; the others are answered but not recorded, and the next one recorded
/// says how many were left out (one line in serve's log).
final class DecisionRecorder {
  let log: AccessLog
  let keepDays: Int
  private let say: (LogLine) -> Void
  private var outage = Outage()
  private var lastPrune: Int64? = nil
  private var lockedLimit = LockedDenialLimit()

  static let lockedBurst = LockedDenialLimit.burst

  static let defaultKeepDays = 365
  static let dayMs: Int64 = 86_400_000

  init(
    log: AccessLog, keepDays: Int = DecisionRecorder.defaultKeepDays,
    say: @escaping (LogLine) -> Void
  ) {
    self.log = log
    self.keepDays = keepDays
    self.say = say
  }

  /// Records one decision; what the log made of it.
  func record(_ entry: DecisionCore.Record) -> DecisionCore.Recorded {
    let decision = entry.decision
    let at = entry.at
    let record = AccessLog.Record(
      at: at, device: entry.device, keypad: entry.keypad, person: decision.person,
      granted: decision.granted, reason: decision.granted ? nil : decision.reason?.rawValue,
      duress: decision.duress, attempt: entry.attempt)
    if decision.reason == .locked, !decision.granted {
      let (record, held) = lockedLimit.admit(at: at)
      guard record else { return .kept }
      if held > 0 { say(LockedDenialLimit.heldLine(held)) }
    }
    let recorded: AccessLog.Record
    do {
      recorded = try log.commit(record, uses: decision.granted ? decision.uses : nil)
    } catch {
      if outage.failed() {
        say(.error("\(error); every code is denied (reason unavailable) until it can be recorded"))
      }
      return .failed
    }
    if outage.worked() { say(.info("\(log.path): decisions are recorded again")) }
    pruneNow(at)
    guard decision.granted, !recorded.granted else { return .kept }
    return .denied(recorded.reason.flatMap(DenialReason.init(rawValue:)) ?? .usedUp)
  }

  /// Drops what is older than `keepDays`, at most once an hour.
  func pruneNow(_ now: Int64) {
    if let lastPrune, now - lastPrune < 3_600_000, now >= lastPrune { return }
    lastPrune = now
    _ = try? log.prune(before: now - Int64(keepDays) * Self.dayMs)
  }
}
