/// The command-line words of `pinpadd` and `pinpadctl`, read front to back: options
/// `--name VALUE` or `--name=VALUE`, flags `--name` or `-x`, and plain words (commands,
/// operands). Each program decides what its names mean; this says how they are spelled.
public struct Arguments {
  /// One word as read: `--name=VALUE` comes with its value split off.
  public struct Word: Equatable, Sendable {
    /// `--config` for `--config=FILE`; the whole word otherwise.
    public var name: String
    /// What came after the first `=` of a `--name=VALUE` word.
    public var inline: String?
    /// The word as it was given.
    public var text: String
  }

  private var rest: ArraySlice<String>

  public init(_ words: [String]) { rest = words[...] }

  public var isEmpty: Bool { rest.isEmpty }
  /// The words not read yet.
  public var remaining: [String] { Array(rest) }
  /// The next word, without reading it.
  public var peek: Word? { rest.first.map(Self.split) }

  /// Reads the next word.
  public mutating func next() -> Word? { rest.popFirst().map(Self.split) }

  /// The value of option `word`: its `=VALUE`, else the next word (whatever it is, so a
  /// value may start with `-`). Missing: `missing`, or "NAME needs a value".
  public mutating func value(of word: Word, missing: String? = nil) throws(UsageError) -> String {
    if let inline = word.inline { return inline }
    guard let next = rest.popFirst() else {
      throw UsageError(missing ?? "\(word.name) needs a value")
    }
    return next
  }

  /// `word` used as a flag: a `=VALUE` is refused.
  public func flag(_ word: Word) throws(UsageError) {
    if word.inline != nil { throw UsageError("\(word.name) takes no value") }
  }

  private static func split(_ text: String) -> Word {
    guard text.hasPrefix("--"), let eq = text.firstIndex(of: "=") else {
      return Word(name: text, inline: nil, text: text)
    }
    return Word(
      name: String(text[..<eq]), inline: String(text[text.index(after: eq)...]), text: text)
  }
}
