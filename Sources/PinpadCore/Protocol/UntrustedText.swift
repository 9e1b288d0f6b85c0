/// Text that came from outside (a controller's verdict message, a line of a file) made
/// safe to show or log: nothing in it can drive a terminal or reorder what is shown.
public enum UntrustedText {
  /// The most UTF-8 bytes a verdict message keeps (docs/protocol.md, "Socket: verdict").
  public static let maxMessageBytes = 200

  /// `text` without C0 controls, DEL, C1 controls (U+0080...U+009F, e.g. the one-byte
  /// CSI 0x9B), Unicode format characters (bidi overrides and isolates, zero-width
  /// characters, the BOM) and line or paragraph separators; tab, CR and LF become one
  /// space each. Then cut to at most `maxBytes` bytes of UTF-8 on a character
  /// boundary, so no character is split.
  public static func sanitized(_ text: String, maxBytes: Int = maxMessageBytes) -> String {
    var clean = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x09, 0x0A, 0x0D: clean.append(" ")
      case 0x00...0x1F, 0x7F...0x9F: continue
      default:
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .control, .surrogate: continue
        default: clean.append(scalar)
        }
      }
    }
    return prefix(String(clean), maxBytes: maxBytes)
  }

  /// The longest run of whole characters of `text` that fits in `maxBytes` of UTF-8.
  public static func prefix(_ text: String, maxBytes: Int) -> String {
    guard text.utf8.count > maxBytes else { return text }
    var out = ""
    var used = 0
    for character in text {
      let size = character.utf8.count
      if used + size > maxBytes { break }
      out.append(character)
      used += size
    }
    return out
  }

  /// `text` cut to `columns` characters, its last one an ellipsis when anything was
  /// cut. Counts characters, not terminal cells (a wide CJK character takes two).
  public static func fitted(_ text: String, columns: Int) -> String {
    guard columns > 0 else { return "" }
    guard text.count > columns else { return text }
    return String(text.prefix(columns - 1)) + "\u{2026}"
  }

  /// `text` with every control character written visibly (`\r`, `\t`, `\x1b`,
  /// `\u{9b}`...), for error lines that quote a file: printing them raw would let the
  /// file move the cursor, clear the screen or ring the bell.
  public static func escapingControls(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      guard isControl(scalar) else {
        out.unicodeScalars.append(scalar)
        continue
      }
      switch scalar.value {
      case 0x09: out += "\\t"
      case 0x0A: out += "\\n"
      case 0x0D: out += "\\r"
      case 0x00...0xFF:
        let hex = String(scalar.value, radix: 16)
        out += "\\x" + (hex.count < 2 ? "0" : "") + hex
      default: out += "\\u{" + String(scalar.value, radix: 16) + "}"
      }
    }
    return out
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: return true
    default:
      switch scalar.properties.generalCategory {
      case .format, .lineSeparator, .paragraphSeparator: return true
      default: return false
      }
    }
  }
}
