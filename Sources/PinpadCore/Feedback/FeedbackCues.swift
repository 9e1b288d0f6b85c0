/// Which keypad's feedback a Session effect is, and which cue (pinpadd.conf(5),
/// Feedback=): the shell hands each effect over as it performs it and plays what comes
/// back. It reads only what the Session already tells every client (entry events,
/// verdicts, lockouts), so nothing here can tell a right digit from a wrong one or a
/// duress grant from any grant (the alarm that follows one is not a cue).
public struct FeedbackCues: Sendable {
  /// Attempts sent and not yet decided, oldest first: a verdict names only its id.
  private var waiting: [(id: String, keypad: String)] = []
  /// At most this many attempts are remembered (the Session keeps fewer pending).
  public static let maxWaiting = 256

  public init() {}

  /// The cue `effect` gives at `now`, with its keypad; nil for none. `openTime(keypad)`:
  /// how long the doors that `keypad` opens stay open (zero: none).
  public mutating func cue(
    for effect: Effect, now: Instant, openTime: (String) -> Duration
  ) -> (keypad: String, cue: Feedback.Cue)? {
    switch effect {
    case .broadcast(.entry(let keypad, let event, _)):
      switch event {
      case .started, .changed, .deleted, .cleared: return (keypad, .key)
      case .timeout, .rejected, .cardRead: return nil
      }
    case .sendCode(let id, let keypad, _, _):
      if waiting.count >= Self.maxWaiting { waiting.removeFirst() }
      waiting.append((id, keypad))
      return (keypad, .key)  // the submitting key (Enter, or the last digit)
    case .broadcast(.verdict(let id, let result, _)):
      guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
      let keypad = waiting.remove(at: index).keypad
      switch result {
      case .granted: return (keypad, .granted(open: openTime(keypad)))
      // No answer in time: the door stayed shut, as for a denial.
      case .denied, .timeout: return (keypad, .denied)
      }
    case .broadcast(.lockout(let keypad, let seconds)):
      guard seconds > 0 else { return (keypad, .unlocked) }
      return (keypad, .locked(until: now + .seconds(seconds)))
    default:
      return nil
    }
  }
}
