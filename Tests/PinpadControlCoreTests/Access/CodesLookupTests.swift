import PinpadCore
import Testing

@testable import PinpadControlCore

/// Which lines a code message can match (docs/protocol.md, "Codes file: matching"), and
/// how keyed tags narrow them.
@Suite struct CodesLookupTests {
  static let key = CodeTagKey(key: Array(0..<32))
  static func hash(_ n: Int) -> [UInt8] { Array("$y$j9T$salt\(n)$hash\(n)".utf8) }

  static func with<R>(_ text: String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
    guard let text else { return body(nil) }
    return Array(text.utf8).withUnsafeBufferPointer { body($0) }
  }

  static func candidates(
    _ entries: [CodesFile.Entry], code: String?, card: String?, key: CodeTagKey? = key
  ) -> [CodesLookup.Candidate] {
    with(code) { code in
      with(card) { card in CodesLookup.candidates(in: entries, code: code, card: card, key: key) }
    }
  }

  static func tag(_ kind: CodeTag.Kind, _ hash: [UInt8], _ secret: String, key: CodeTagKey = key)
    -> CodeTag
  {
    with(secret) {
      key.tag(
        kind, hash: hash, secret: $0!, digits: kind == .pin ? CodeTag.pinDigits : CodeTag.cardDigits
      )
    }
  }

  static let pinOnly = CodesFile.Entry(name: "pin", pinHash: hash(1))
  static let both = CodesFile.Entry(name: "both", pinHash: hash(2), cardHash: hash(3))
  static let cardOnly = CodesFile.Entry(name: "card", pinHash: nil, cardHash: hash(4))

  @Test("a code alone is checked against PIN hashes, a card alone only against card-only lines")
  func oneSecret() {
    let entries = [Self.pinOnly, Self.both, Self.cardOnly]
    #expect(
      Self.candidates(entries, code: "1234", card: nil) == [
        .init(index: 0, checks: [.pin]), .init(index: 1, checks: [.pin]),
      ])
    #expect(
      Self.candidates(entries, code: nil, card: "0012345678") == [
        .init(index: 2, checks: [.card])
      ])
    // A line with a PIN hash needs the PIN, always: the card alone never opens it.
    #expect(CodesLookup.checks(for: Self.both, code: false, card: true) == nil)
  }

  @Test("a card with a code must match both hashes of one line; a card-only line takes no code")
  func cardAndCode() {
    let entries = [Self.pinOnly, Self.both, Self.cardOnly]
    #expect(
      Self.candidates(entries, code: "1234", card: "0012345678") == [
        .init(index: 1, checks: [.card, .pin])
      ])
    #expect(CodesLookup.checks(for: Self.both, code: false, card: false) == nil)
  }

  @Test("a PIN tag keeps the line its PIN made and drops nearly all others")
  func pinTagNarrows() {
    var entries: [CodesFile.Entry] = []
    for n in 0..<10_000 {
      var entry = CodesFile.Entry(name: "p\(n)", pinHash: Self.hash(n))
      entry.pinTag = Self.tag(.pin, entry.pinHash!, String(format6(n)))
      entries.append(entry)
    }
    // 16 bits: about 10 000/65 536 others, so nearly always none. (Deterministic here:
    // the stand-in MAC, the key and the lines are fixed.)
    for n in [0, 417, 9999] {
      let found = Self.candidates(entries, code: format6(n), card: nil).map(\.index)
      #expect(found.contains(n))
      #expect(found.count <= 3, "\(found.count) candidates")
    }
    let wrong = Self.candidates(entries, code: "99999999", card: nil)
    #expect(wrong.count <= 2)
  }

  @Test(
    "a shorter tag (as an older hash wrote, 2 digits) is the longer one's prefix: its line still matches, among more others"
  )
  func shorterTagsStillWork() {
    var entries: [CodesFile.Entry] = []
    for n in 0..<2000 {
      var entry = CodesFile.Entry(name: "p\(n)", pinHash: Self.hash(n))
      let tag = Self.tag(.pin, entry.pinHash!, format6(n))
      entry.pinTag = n < 1000 ? CodeTag(keyID: tag.keyID, digits: Array(tag.digits.prefix(2))) : tag
      entries.append(entry)
    }
    let short = Self.with(format6(7)) {
      Self.key.tag(.pin, hash: Self.hash(7), secret: $0!, digits: 2)
    }
    #expect(short == entries[7].pinTag)
    for n in [7, 1007] {
      let found = Self.candidates(entries, code: format6(n), card: nil).map(\.index)
      #expect(found.contains(n))
      // About 1000/256 of the 2-digit lines, about none of the 4-digit ones.
      #expect(found.count > 1 && found.count < 20, "\(found.count) candidates")
      #expect(found.filter { $0 >= 1000 && $0 != n }.count <= 2)
    }
  }

  @Test("a card tag selects the person's line for card+PIN")
  func cardTagNarrows() {
    var entries: [CodesFile.Entry] = []
    for n in 0..<1000 {
      var entry = CodesFile.Entry(
        name: "p\(n)", pinHash: Self.hash(n), cardHash: Self.hash(5000 + n))
      entry.pinTag = Self.tag(.pin, entry.pinHash!, format6(n))
      entry.cardTag = Self.tag(.card, entry.cardHash!, "card\(n)")
      entries.append(entry)
    }
    let found = Self.candidates(entries, code: format6(3), card: "card3")
    #expect(found.map(\.index).contains(3))
    #expect(found.count <= 2, "\(found)")
    #expect(found.allSatisfy { $0.checks == [.card, .pin] })
  }

  @Test(
    "lines without a tag, or with another key's tag, stay candidates; without a key nothing is dropped"
  )
  func untaggedLinesStay() {
    let other = CodeTagKey(key: Array(repeating: 7, count: 32))
    #expect(other.id != Self.key.id)
    var mine = CodesFile.Entry(name: "mine", pinHash: Self.hash(1))
    mine.pinTag = Self.tag(.pin, mine.pinHash!, "1111")
    var foreign = CodesFile.Entry(name: "foreign", pinHash: Self.hash(2))
    foreign.pinTag = Self.tag(.pin, foreign.pinHash!, "1111", key: other)
    let old = CodesFile.Entry(name: "old", pinHash: Self.hash(3))
    let entries = [mine, foreign, old]
    // A code whose tag on "mine" differs: "mine" goes, the other two stay.
    var code = "0000"
    for n in 0..<10000 where Self.tag(.pin, mine.pinHash!, String(n)) != mine.pinTag {
      code = String(n)
      break
    }
    #expect(Self.candidates(entries, code: code, card: nil).map(\.index) == [1, 2])
    #expect(Self.candidates(entries, code: "1111", card: nil).map(\.index) == [0, 1, 2])
    #expect(Self.candidates(entries, code: code, card: nil, key: nil).map(\.index) == [0, 1, 2])
    #expect(CodesLookup.untaggedPinLines(in: entries, key: Self.key) == 2)
    #expect(CodesLookup.untaggedPinLines(in: entries, key: nil) == 3)
  }

  @Test("a tag depends on the key, the line's hash, the secret and its kind")
  func tagInputs() {
    let hash = Self.hash(1)
    let base = Self.tag(.pin, hash, "12345678")
    #expect(base.keyID == Self.key.id && base.digits.count == 4)
    // 16-bit tags collide by chance (1 in 65 536), so compare full 8-digit tags here.
    func long(_ kind: CodeTag.Kind, _ hash: [UInt8], _ secret: String, _ key: CodeTagKey) -> [UInt8]
    {
      Self.with(secret) { key.tag(kind, hash: hash, secret: $0!, digits: 8).digits }
    }
    let reference = long(.pin, hash, "12345678", Self.key)
    #expect(reference == long(.pin, hash, "12345678", Self.key))
    #expect(reference != long(.card, hash, "12345678", Self.key))
    #expect(reference != long(.pin, Self.hash(2), "12345678", Self.key))
    #expect(reference != long(.pin, hash, "12345679", Self.key))
    #expect(
      reference != long(.pin, hash, "12345678", CodeTagKey(key: Array(repeating: 1, count: 32))))
  }

  @Test("the key file: 64 hex digits and a newline, written and read back")
  func keyFile() {
    let key = Array(0..<32).map { UInt8($0 * 7 & 0xFF) }
    let text = CodeTagKey.fileText(key)
    #expect(text.count == 65 && text.hasSuffix("\n"))
    #expect(CodeTagKey.keyBytes(file: Array(text.utf8)) == key)
    #expect(CodeTagKey.keyBytes(file: Array(text.uppercased().utf8)) == key)
    #expect(CodeTagKey.keyBytes(file: Array(text.dropLast().utf8) + [0x0D, 0x0A]) == key)
    for bad in ["", "abc\n", String(text.dropFirst()), "zz" + text.dropFirst(2), text + "00"] {
      #expect(CodeTagKey.keyBytes(file: Array(bad.utf8)) == nil)
    }
  }

  @Test("what can be a code (1 to 32 digits) and a card (1 to 64 letters or digits)")
  func shapes() {
    #expect(Self.with("0123") { CodesLookup.isCode($0!) })
    for bad in ["", "12a4", String(repeating: "1", count: 33), "12 4"] {
      #expect(!Self.with(bad) { CodesLookup.isCode($0!) }, "\(bad)")
    }
    #expect(Self.with("04A1b2C3") { CodesLookup.isCard($0!) })
    for bad in ["", "04-A1", String(repeating: "1", count: 65), "\\u0030"] {
      #expect(!Self.with(bad) { CodesLookup.isCard($0!) }, "\(bad)")
    }
  }
}

func format6(_ n: Int) -> String {
  let text = String(n)
  return String(repeating: "0", count: max(0, 6 - text.count)) + text
}
