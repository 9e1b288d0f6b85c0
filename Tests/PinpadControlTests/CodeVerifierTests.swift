import PinpadControlCore
import PinpadCore
import Testing

@testable import PinpadControl

/// `serve`'s decisions with real crypt(3) hashes, `CodeVerifier` as the core's
/// `firstMatch` (docs/protocol.md, "Codes file: matching"): which line a code, a card,
/// or both match, on one worker and on two.
@Suite struct CodeVerifierTests {
  static func hash(_ secret: String) -> [UInt8] {
    Array(secret.withCString { PasswordHasher().makeHash(code: $0)! }.utf8)
  }
  static let key = CodeTagKey(key: Array(repeating: 0x42, count: 32))

  /// alice: PIN 1111 with card A; bob: PIN 2222 with card B; carol: card C, no PIN;
  /// dave: PIN 9999, duress; erin: PIN 1111 (alice's too), later in the file.
  static let entries: [CodesFile.Entry] = [
    .init(name: "alice", pinHash: hash("1111"), cardHash: hash("00A")),
    .init(name: "bob", pinHash: hash("2222"), cardHash: hash("00B")),
    .init(name: "carol", pinHash: nil, cardHash: hash("00C")),
    .init(name: "dave", pinHash: hash("9999"), duress: true),
    .init(name: "erin", pinHash: hash("1111")),
  ]

  /// What `verifier` grants for `code`/`card` through the decision core (nil: denied);
  /// expects both buffers zeroed afterwards.
  static func check(
    _ verifier: CodeVerifier, code: String?, card: String?,
    entries: [CodesFile.Entry] = entries
  ) -> Match? {
    var codeBytes = code.map { Array($0.utf8) } ?? []
    var cardBytes = card.map { Array($0.utf8) } ?? []
    var core = DecisionCore(
      lockout: ControllerLockout(rules: LockoutConfig()), zone: .utc,
      clock: { Moment(wallMs: 1_800_000_000_000, mono: .zero) },
      firstMatch: { verifier.firstMatch($0, entries: $1, code: $2, card: $3) })
    let decision = codeBytes.withUnsafeMutableBufferPointer { codeBuffer in
      cardBytes.withUnsafeMutableBufferPointer { cardBuffer in
        core.decide(
          Attempt(
            id: "a", keypad: "door", code: code == nil ? nil : codeBuffer,
            card: card == nil ? nil : cardBuffer),
          people: People(entries: entries, key: verifier.key)
        ).decision
      }
    }
    #expect(codeBytes.allSatisfy { $0 == 0 } && cardBytes.allSatisfy { $0 == 0 })
    guard decision.granted, let name = decision.person else { return nil }
    return Match(name: name, duress: decision.duress)
  }

  struct Match: Equatable {
    var name: String
    var duress: Bool
  }

  @Test("card and PIN must be on the same line", arguments: [1, 2])
  func cardAndPin(workers: Int) {
    let verifier = CodeVerifier(key: nil, workers: workers)
    #expect(Self.check(verifier, code: "1111", card: "00A")?.name == "alice")
    #expect(Self.check(verifier, code: "2222", card: "00B")?.name == "bob")
    #expect(Self.check(verifier, code: "2222", card: "00A") == nil, "bob's PIN with alice's card")
    #expect(Self.check(verifier, code: "1111", card: "00X") == nil, "a right PIN, a wrong card")
    #expect(Self.check(verifier, code: "1111", card: "00C") == nil, "carol has no PIN")
  }

  @Test(
    "a card alone matches only card-only lines; a code alone matches PIN hashes",
    arguments: [1, 2])
  func oneSecret(workers: Int) {
    let verifier = CodeVerifier(key: nil, workers: workers)
    #expect(Self.check(verifier, code: nil, card: "00C")?.name == "carol")
    #expect(Self.check(verifier, code: nil, card: "00A") == nil, "alice's line needs her PIN")
    #expect(Self.check(verifier, code: nil, card: "1111") == nil)
    #expect(Self.check(verifier, code: "2222", card: nil)?.name == "bob")
    #expect(Self.check(verifier, code: "3333", card: nil) == nil)
    #expect(Self.check(verifier, code: nil, card: nil) == nil)
  }

  @Test("the first matching line in file order wins, on any number of workers", arguments: [1, 2])
  func fileOrder(workers: Int) {
    let verifier = CodeVerifier(key: nil, workers: workers)
    #expect(Self.check(verifier, code: "1111", card: nil)?.name == "alice")
    #expect(
      Self.check(verifier, code: "1111", card: nil, entries: Array(Self.entries.reversed()))?.name
        == "erin")
  }

  @Test("a duress line grants and says so; the others do not")
  func duress() {
    let verifier = CodeVerifier(key: nil)
    #expect(
      Self.check(verifier, code: "9999", card: nil) == .init(name: "dave", duress: true))
    #expect(
      Self.check(verifier, code: "2222", card: nil) == .init(name: "bob", duress: false))
  }

  @Test("what cannot be a code or a card is denied unchecked, and still zeroed")
  func malformed() {
    let verifier = CodeVerifier(key: nil)
    #expect(Self.check(verifier, code: "11a1", card: nil) == nil)
    #expect(Self.check(verifier, code: "1111", card: "00-A") == nil)
    #expect(Self.check(verifier, code: String(repeating: "1", count: 33), card: nil) == nil)
  }

  @Test("tagged lines, old lines without tags and lines tagged with another key all match")
  func tagsAndOldLines() {
    func tagged(_ entry: CodesFile.Entry, pin: String?, card: String?, key: CodeTagKey)
      -> CodesFile.Entry
    {
      var entry = entry
      if let pin {
        entry.pinTag = Array(pin.utf8).withUnsafeBufferPointer {
          key.tag(.pin, hash: entry.pinHash!, secret: $0, digits: CodeTag.pinDigits)
        }
      }
      if let card {
        entry.cardTag = Array(card.utf8).withUnsafeBufferPointer {
          key.tag(.card, hash: entry.cardHash!, secret: $0, digits: CodeTag.cardDigits)
        }
      }
      return entry
    }
    let other = CodeTagKey(key: Array(repeating: 0x17, count: 32))
    let entries = [
      tagged(Self.entries[0], pin: "1111", card: "00A", key: Self.key),
      Self.entries[1],  // old: no tags
      tagged(Self.entries[2], pin: nil, card: "00C", key: other),  // another key's
      tagged(Self.entries[3], pin: "9999", card: nil, key: Self.key),
    ]
    let verifier = CodeVerifier(key: Self.key)
    #expect(Self.check(verifier, code: "1111", card: "00A", entries: entries)?.name == "alice")
    #expect(Self.check(verifier, code: "2222", card: "00B", entries: entries)?.name == "bob")
    #expect(Self.check(verifier, code: nil, card: "00C", entries: entries)?.name == "carol")
    #expect(Self.check(verifier, code: "9999", card: nil, entries: entries)?.duress == true)
    #expect(Self.check(verifier, code: "2222", card: "00A", entries: entries) == nil)
    // The same file without a key: every line is checked, same answers.
    let plain = CodeVerifier(key: nil)
    #expect(Self.check(plain, code: "1111", card: "00A", entries: entries)?.name == "alice")
    #expect(Self.check(plain, code: "9999", card: nil, entries: entries)?.name == "dave")
  }
}
