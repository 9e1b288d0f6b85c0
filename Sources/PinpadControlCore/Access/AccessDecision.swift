import PinpadCore

/// How the controller turns a checked code into a verdict with the rules of the codes
/// file (docs/protocol.md, "Codes file: options" and "Codes file: matching"). Of the
/// lines a code could match, those that may grant now are checked first, so a person with
/// two lines (one per door, one per shift) gets the one that opens; only when none of
/// them matches are the others checked, to name the reason (`expired` rather than
/// `unknown`). Uses are counted by the caller, in the database.
public enum AccessDecision {
  /// `candidates` with the lines that may grant at `epoch` on `place` first, each group
  /// in file order.
  public static func ordered(
    _ candidates: [CodesLookup.Candidate], entries: [CodesFile.Entry], at epoch: Int64,
    zone: LocalZone, place: String
  ) -> [CodesLookup.Candidate] {
    var open: [CodesLookup.Candidate] = []
    var closed: [CodesLookup.Candidate] = []
    for candidate in candidates {
      if entries[candidate.index].rules.denial(at: epoch, zone: zone, place: place) == nil {
        open.append(candidate)
      } else {
        closed.append(candidate)
      }
    }
    return open + closed
  }

  public enum Outcome: Equatable, Sendable {
    /// Grant, once a use is spent when the line has `uses`.
    case grant(index: Int, uses: Int?)
    case deny(DenialReason, index: Int?)
  }

  /// The outcome for the line `index` the code matched (nil: none did).
  public static func outcome(
    matched index: Int?, entries: [CodesFile.Entry], at epoch: Int64, zone: LocalZone,
    place: String
  ) -> Outcome {
    guard let index else { return .deny(.unknown, index: nil) }
    let rules = entries[index].rules
    if let reason = rules.denial(at: epoch, zone: zone, place: place) {
      return .deny(reason, index: index)
    }
    return .grant(index: index, uses: rules.uses)
  }
}
