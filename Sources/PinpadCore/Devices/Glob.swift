/// Shell-style pattern matching as `fnmatch(3)` without flags: `*` any run of characters
/// (including `/`), `?` one character, `[abc]`, `[a-z]`, `[!a-z]` or `[^a-z]` one
/// character from (or not from) a set, `\x` a literal x. A `[` without its `]` is literal.
public struct Glob: Equatable, Hashable, Sendable {
  public let pattern: String
  private let scalars: [Unicode.Scalar]

  public init(_ pattern: String) {
    self.pattern = pattern
    self.scalars = Array(pattern.unicodeScalars)
  }

  /// The pattern has no special characters: it only matches itself.
  public var isLiteral: Bool {
    !scalars.contains { $0 == "*" || $0 == "?" || $0 == "[" || $0 == "\\" }
  }

  public func matches(_ text: String) -> Bool {
    let text = Array(text.unicodeScalars)
    // Iterative matcher with one backtrack point for the last `*`: linear in practice.
    var p = 0
    var t = 0
    var starP = -1
    var starT = 0
    while t < text.count {
      if p < scalars.count {
        switch scalars[p] {
        case "*":
          starP = p
          starT = t
          p += 1
          continue
        case "?":
          p += 1
          t += 1
          continue
        case "[":
          if let (matched, next) = matchSet(at: p, text[t]) {
            if matched {
              p = next
              t += 1
              continue
            }
          } else if text[t] == "[" {
            p += 1
            t += 1
            continue
          }
        case "\\" where p + 1 < scalars.count:
          if scalars[p + 1] == text[t] {
            p += 2
            t += 1
            continue
          }
        default:
          if scalars[p] == text[t] {
            p += 1
            t += 1
            continue
          }
        }
      }
      guard starP >= 0 else { return false }
      p = starP + 1
      starT += 1
      t = starT
    }
    while p < scalars.count, scalars[p] == "*" { p += 1 }
    return p == scalars.count
  }

  /// The set starting at `scalars[start] == "["`: whether `c` is in it and the index
  /// after its `]`, or nil when the set is not closed (then `[` is literal).
  private func matchSet(at start: Int, _ c: Unicode.Scalar) -> (Bool, Int)? {
    var i = start + 1
    var negate = false
    if i < scalars.count, scalars[i] == "!" || scalars[i] == "^" {
      negate = true
      i += 1
    }
    var found = false
    var first = true
    while i < scalars.count {
      var low = scalars[i]
      if low == "]" && !first { return (found != negate, i + 1) }
      first = false
      if low == "\\", i + 1 < scalars.count {
        i += 1
        low = scalars[i]
      }
      var high = low
      if i + 2 < scalars.count, scalars[i + 1] == "-", scalars[i + 2] != "]" {
        high = scalars[i + 2]
        i += 2
      }
      if low <= c && c <= high { found = true }
      i += 1
    }
    return nil
  }
}
