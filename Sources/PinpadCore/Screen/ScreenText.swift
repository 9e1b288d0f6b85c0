/// The words of each screen, built from the phase (never from digits).
public enum ScreenText {
  public static let checking = "Checking\u{2026}"
  /// The prompt once a card was read in card+pin mode (pinpadd.conf(5), [Keypad NAME]).
  public static let cardReadPrompt = "Card read - enter PIN"
  /// The notice for a keypad digit that needs a card first.
  public static let presentCard = "Present card first"

  /// The large line of a verdict or lockout card.
  public static func title(_ phase: ScreenModel.Phase) -> String {
    switch phase {
    case .idle, .entering: return ""
    case .checking: return checking
    case .granted: return "Access granted"
    case .denied: return "Denied"
    case .locked(let seconds): return "Locked: \(max(0, seconds)) s"
    case .unavailable: return "Unavailable"
    case .noResponse: return "No response"
    }
  }

  /// The smaller lines under the title (at most two, the controller's message first).
  public static func details(_ phase: ScreenModel.Phase) -> [String] {
    switch phase {
    case .idle, .entering, .checking: return []
    case .granted(let message): return [message ?? "Welcome"]
    case .denied(let message, let left):
      var lines: [String] = []
      if let message, !message.isEmpty { lines.append(message) }
      if let left {
        lines.append(attempts(left))
      } else if lines.isEmpty {
        lines.append("Please try again")
      }
      return lines
    case .locked: return ["Too many attempts"]
    case .unavailable: return ["The service is not answering", "Please try again later"]
    case .noResponse: return ["The check timed out", "Please try again"]
    }
  }

  /// The phase in one line, as a text console shows it ("Denied — 2 attempts left").
  public static func summary(_ phase: ScreenModel.Phase) -> String {
    switch phase {
    case .denied(let message, let left):
      var s = "Denied"
      if let left { s += " \u{2014} " + attempts(left) }
      if let message, !message.isEmpty { s += " \u{2014} " + message }
      return s
    case .granted(let message):
      if let message, !message.isEmpty { return "Access granted \u{2014} " + message }
      return "Access granted"
    default:
      return title(phase)
    }
  }

  static func attempts(_ left: Int) -> String {
    left == 1 ? "1 attempt left" : "\(max(0, left)) attempts left"
  }
}
