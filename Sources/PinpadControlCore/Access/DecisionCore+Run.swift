import PinpadCore

extension DecisionCore {
  /// Both steps for `attempt` among `people`, each effect carried out by `perform` (which
  /// gives what recording made of the decision for `.record`, nil for the others): the
  /// decision is recorded before it is returned, so before its verdict is sent. `pinpadctl
  /// serve`, its fleet controller and a door deciding from its replica all run this.
  ///
  /// `divert`: when it says so for the decision taken, nothing is recorded or counted and
  /// nil is returned (a door sends a `uses=` line's code to the site instead).
  public mutating func run(
    _ attempt: Attempt, people: People, divert: (Decision) -> Bool = { _ in false },
    perform: (Effect) -> Recorded?
  ) -> Decision? {
    let pending = decide(attempt, people: people)
    if divert(pending.decision) {
      for case .say(let line) in pending.effects { _ = perform(.say(line)) }
      return nil
    }
    var recorded = Recorded.kept
    for effect in pending.effects {
      if let outcome = perform(effect) { recorded = outcome }
    }
    let settled = settle(pending, recorded)
    for effect in settled.effects { _ = perform(effect) }
    return settled.decision
  }
}
