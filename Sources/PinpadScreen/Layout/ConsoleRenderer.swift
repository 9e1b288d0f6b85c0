import PinpadCore

/// Draws a `ScreenModel` as text for a terminal or a VT (ANSI escape sequences).
///
/// Filled boxes show `*` unless the model carries digits (revealed, or Mask=digits);
/// the model is the only input, so a masked frame cannot hold a digit of the code.
public enum ConsoleRenderer {
  /// The texts shown for each phase: (headline, detail), the same words as the
  /// framebuffer's (`ScreenText`).
  public static func texts(for phase: ScreenModel.Phase) -> (String, String?) {
    let details = ScreenText.details(phase)
    return (ScreenText.title(phase), details.isEmpty ? nil : details.joined(separator: " - "))
  }

  /// The boxes line: `[*] [*] [_] [ ]`.
  public static func boxes(_ model: ScreenModel) -> String {
    var parts: [String] = []
    for i in 0..<model.boxes {
      if i < model.filled {
        if let digits = model.digits, i < digits.count {
          parts.append("[\(digits[i])]")
        } else {
          parts.append("[*]")
        }
      } else if model.cursor == i {
        parts.append("[_]")
      } else {
        parts.append("[ ]")
      }
    }
    return parts.joined(separator: " ")
  }

  /// A whole frame: clear, then prompt, boxes and status lines, each ended by CR LF
  /// (the terminal may be in raw mode). Colour marks granted (green) and refusals (red).
  /// `hint` (the keys, `TerminalHint`) and `status` (the latest log line, when the log
  /// shares this terminal) are dim lines at the bottom, below everything the person
  /// enters. Every text is cleaned of control and format characters (a verdict message
  /// already is) and cut with an ellipsis to fit `columns` after its two-space indent.
  public static func frame(
    _ model: ScreenModel, hint: String? = nil, status: String? = nil, columns: Int = 80
  ) -> String {
    let (headline, detail) = texts(for: model.phase)
    let room = max(1, columns - 3)
    func line(_ text: String) -> String {
      UntrustedText.fitted(UntrustedText.sanitized(text, maxBytes: .max), columns: room)
    }
    var out = "\u{1B}[H\u{1B}[2J\r\n"
    out += "  " + line(model.prompt) + "\r\n\r\n"
    out += "  " + boxes(model)
    if model.showsRevealToggle { out += model.revealed ? "   (shown)" : "   (hidden)" }
    out += "\r\n\r\n"
    let colour: String
    switch model.phase {
    case .granted: colour = "\u{1B}[1;32m"
    case .denied, .locked, .unavailable, .noResponse: colour = "\u{1B}[1;31m"
    default: colour = "\u{1B}[1m"
    }
    if !headline.isEmpty { out += "  " + colour + line(headline) + "\u{1B}[0m\r\n" }
    if let detail, !detail.isEmpty { out += "  " + line(detail) + "\r\n" }
    if let notice = model.notice { out += "  " + line(notice) + "\r\n" }
    if let pad = model.keypad {
      out += "\r\n"
      for row in 0..<4 {
        out += "   "
        for column in 0..<3 {
          let label: String
          switch pad.key(row: row, column: column) {
          case .digit(let d): label = " \(d) "
          case .backspace: label = "<- "
          case .ok: label = "OK "
          }
          out +=
            pad.pressed == pad.key(row: row, column: column)
            ? "\u{1B}[7m\(label)\u{1B}[0m " : label + " "
        }
        out += "\r\n"
      }
    }
    if hint != nil || status != nil { out += "\r\n" }
    if let hint { out += "  " + dim + hint + "\u{1B}[0m\r\n" }
    if let status { out += "  " + dim + statusText(status, columns: columns) + "\u{1B}[0m\r\n" }
    return out
  }

  /// Starts the dim hint and status lines (SGR 2, faint).
  public static let dim = "\u{1B}[2m"

  /// A log line as the status line shows it: cleaned like every other text
  /// (`UntrustedText.sanitized`: a device's name cannot move the cursor), cut to fit
  /// `columns` with the two-space indent, ending in `…` when cut.
  public static func statusText(_ line: String, columns: Int) -> String {
    UntrustedText.fitted(
      UntrustedText.sanitized(line, maxBytes: .max), columns: max(1, columns - 3))
  }
}
