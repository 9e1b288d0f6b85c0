/// The key-hint line under the console screen when keys come from the same terminal
/// (`--input terminal`): which typed keys do what under the entry rules. It names
/// keys only, never a number, so it cannot be mistaken for (or mixed with) a code.
public enum TerminalHint {
  /// E.g. `digits then Enter, Backspace deletes, Esc/* clears, . reveals, Ctrl-C quits`.
  /// Only what the rules give a terminal key: a reveal key the rules do not list is left out.
  public static func line(_ rules: EntryConfig) -> String {
    var parts: [String] = []
    if rules.length != nil {
      parts.append("digits fill the boxes")
    } else if rules.submitKeys.contains(.enter) {
      parts.append("digits then Enter")
    } else {
      parts.append("digits (Enter does not submit here)")
    }
    if rules.backspaceKeys.contains(.backspace) { parts.append("Backspace deletes") }
    let clears = [(KeyCode.esc, "Esc"), (.kpAsterisk, "*")].filter {
      rules.clearKeys.contains($0.0)
    }
    if !clears.isEmpty { parts.append(clears.map(\.1).joined(separator: "/") + " clears") }
    if rules.revealKeys.contains(.kpDot), rules.mask != .digits { parts.append(". reveals") }
    parts.append("Ctrl-C quits")
    return parts.joined(separator: ", ")
  }
}
