import PinpadCore

/// Which codes-file lines a code message can match, and what must be checked on each
/// (docs/protocol.md, "Codes file: matching"):
/// - a `code` alone matches a line's PIN hash;
/// - a `card` alone matches only a card-only line (`-` for the PIN): a line with a PIN
///   hash needs the PIN, always, whatever the keypad's card mode;
/// - a card and a code must match the card hash and the PIN hash of the same line (a
///   card-only line never matches a code).
/// Keyed tags (`CodeTag`) drop the lines whose tag the secret does not produce; a line
/// without a tag, or with one of another key, stays a candidate.
public enum CodesLookup {
  public enum Check: Equatable, Sendable {
    case pin, card
  }

  public struct Candidate: Equatable, Sendable {
    /// The index into the entries.
    public var index: Int
    /// The crypt(3) checks that must all pass, cheapest-to-reject first (the card).
    public var checks: [Check]
  }

  /// A code can be 1...32 ASCII digits (SecretDigits.capacity).
  public static func isCode(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    (1...SecretDigits.capacity).contains(bytes.count)
      && bytes.allSatisfy { (0x30...0x39).contains($0) }
  }

  /// A card number can be 1...64 ASCII letters or digits.
  public static let maxCardLength = 64
  public static func isCard(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    (1...maxCardLength).contains(bytes.count)
      && bytes.allSatisfy {
        (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
      }
  }

  /// The checks that decide `entry` for what was presented; nil when it cannot match.
  public static func checks(for entry: CodesFile.Entry, code: Bool, card: Bool) -> [Check]? {
    switch (code, card) {
    case (true, false): return entry.pinHash == nil ? nil : pinOnly
    case (false, true): return entry.cardHash == nil || entry.pinHash != nil ? nil : cardOnly
    case (true, true): return entry.pinHash == nil || entry.cardHash == nil ? nil : cardAndPIN
    case (false, false): return nil
    }
  }
  // Made once: `candidates` asks for every line of the file, for every code.
  private static let pinOnly: [Check] = [.pin]
  private static let cardOnly: [Check] = [.card]
  private static let cardAndPIN: [Check] = [.card, .pin]

  /// The lines to check, in file order, for a message with `code` and/or `card` (each
  /// already valid, see `isCode`, `isCard`).
  public static func candidates(
    in entries: [CodesFile.Entry], code: UnsafeBufferPointer<UInt8>?,
    card: UnsafeBufferPointer<UInt8>?, key: CodeTagKey?
  ) -> [Candidate] {
    var result: [Candidate] = []
    for (index, entry) in entries.enumerated() {
      guard let checks = checks(for: entry, code: code != nil, card: card != nil) else { continue }
      if let key {
        if let code, let tag = entry.pinTag, let hash = entry.pinHash,
          !key.allows(tag, .pin, hash: hash, secret: code)
        {
          continue
        }
        if let card, let tag = entry.cardTag, let hash = entry.cardHash,
          !key.allows(tag, .card, hash: hash, secret: card)
        {
          continue
        }
      }
      result.append(Candidate(index: index, checks: checks))
    }
    return result
  }

  /// How many lines with a PIN hash have no tag that `key` can use (none, or one of
  /// another key): a code alone is crypt(3)-checked against every one of them.
  public static func untaggedPinLines(in entries: [CodesFile.Entry], key: CodeTagKey?) -> Int {
    entries.filter { entry in
      guard entry.pinHash != nil else { return false }
      guard let key, let tag = entry.pinTag else { return true }
      return tag.keyID != key.id
    }.count
  }
}
