/// The Session's lockout file (`LockoutSaving`): the states brought up to date and a
/// write asked for, and the shell's word on how the write went.
extension Session {
  /// Brings the saved states up to date and asks for a write when the file would change
  /// (or the last write failed).
  mutating func saveLockouts(now: Instant, _ out: inout [Effect]) {
    let at = clock.time(at: now)
    // By index: a keypad is not copied to be read.
    for k in keypads.indices {
      lockouts.record(keypads[k].machine.lockoutState, for: keypads[k].name)
    }
    if let states = lockouts.save(at: at) { out.append(.persistLockouts(states, now: at)) }
  }

  mutating func lockoutsSaved(failure: String?, now: Instant, _ out: inout [Effect]) {
    switch lockouts.saved(failure: failure, now: now) {
    case .saved: break
    case .savedAgain: log(.info, "lockout state saved again", &out)
    case .failed(let reason, let first):
      // Logged once per streak of failures, retried until it works; `status` says so.
      if first {
        log(
          .error,
          "cannot save lockout state: \(reason); retrying every \(Int(LockoutSaving.retryInterval.seconds)) s",
          &out)
      }
    }
  }
}
