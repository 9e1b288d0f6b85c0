import PinpadCore
import Testing

@testable import PinpadControlCore

/// The codes file's lines (docs/protocol.md, "Codes file: format"): `NAME:HASH[:OPTION,...]`.
@Suite struct CodesFileTests {
  static let pin = "$y$j9T$FkGmE7mGVDx2gcM8GiAie0$1cvF3BY2NrVlBPqxfUvfA6n9tzMMgIGLJXnsAN/0nR1"
  static let card = "$y$j9T$Hj6qQ4D3q5M5m4J9RrVvw.$Zo8Kq1H7rRg8e6hT0yqgq1d3t9/9nC2f3E2bR8m4ZQ4"

  static func parse(_ text: String) -> (entries: [CodesFile.Entry], problems: [String]) {
    CodesFile.parse(Array(text.utf8), path: "/etc/pinpadd/codes")
  }

  @Test("a PIN-only line, comments and empty lines")
  func plainLine() {
    let parsed = Self.parse("# staff\n\n   # indented comment\nalice:\(Self.pin)\n")
    #expect(parsed.problems.isEmpty)
    #expect(
      parsed.entries == [CodesFile.Entry(name: "alice", line: 4, pinHash: Array(Self.pin.utf8))])
  }

  @Test("every option: card=, duress, tag=, cardtag=, in any order")
  func everyOption() throws {
    let parsed = Self.parse(
      "bob:\(Self.pin):duress,card=\(Self.card),cardtag=ab12.f3c,tag=AB12.7e\r\n")
    #expect(parsed.problems.isEmpty, "\(parsed.problems)")
    let bob = try #require(parsed.entries.first)
    #expect(bob.name == "bob")
    #expect(bob.pinHash == Array(Self.pin.utf8))
    #expect(bob.cardHash == Array(Self.card.utf8))
    #expect(bob.duress)
    #expect(bob.pinTag == CodeTag(keyID: Array("ab12".utf8), digits: Array("7e".utf8)))
    #expect(bob.cardTag == CodeTag(keyID: Array("ab12".utf8), digits: Array("f3c".utf8)))
  }

  @Test("'-' is a card-only person; it needs card=")
  func cardOnly() throws {
    let parsed = Self.parse("carol:-:card=\(Self.card)\ndave:-\nerin:-:duress\n")
    let carol = try #require(parsed.entries.first)
    #expect(parsed.entries.count == 1)
    #expect(carol.pinHash == nil && carol.cardHash == Array(Self.card.utf8))
    #expect(
      parsed.problems == [
        "/etc/pinpadd/codes:2: dave has neither a PIN hash nor card=HASH",
        "/etc/pinpadd/codes:3: erin has neither a PIN hash nor card=HASH",
      ])
  }

  @Test("a bad line is reported as FILE:LINE and skipped; the lines around it are used")
  func badLinesAreSkipped() {
    let lines = [
      "alice:\(Self.pin)",
      "no colon here",  // 2
      ":\(Self.pin)",  // 3
      "bob:",  // 4
      "carl:ab cd",  // 5
      "dan:!\(Self.pin)",  // 6
      "eve:short",  // 7
      "fay:\(Self.pin):tag=zz",  // 8
      "gus:\(Self.pin):color=red",  // 9
      "hal:\(Self.pin):duress,duress",  // 10
      "ian:\(Self.pin):card=\(Self.card),card=\(Self.card)",  // 11
      "jo:\(Self.pin):",  // 12
      "kim:\(Self.pin):duress=yes",  // 13
      "lee:-:tag=ab12.7e,card=\(Self.card)",  // 14
      "max:\(Self.pin):cardtag=ab12.7e",  // 15
      "ned\u{1B}[2J:\(Self.pin)",  // 16
      "oz:\(Self.pin):card",  // 17
      "pat:\(Self.pin):card=*",  // 18
      "zoe:\(Self.pin):duress",  // 19
    ]
    let parsed = Self.parse(lines.joined(separator: "\n"))
    #expect(parsed.entries.map(\.name) == ["alice", "zoe"])
    #expect(parsed.entries.map(\.line) == [1, 19])
    let expected = [
      "2: expected NAME:HASH[:OPTION,...]",
      "3: the name is empty",
      "4: the hash for bob is empty",
      "5: the hash for carl contains a space, a colon or a comma",
      "6: the hash for dan is locked or disabled",
      "7: the hash for eve is not a crypt(3) hash",
      "8: fay: tag= is not KEYID.HEX (4 hex digits, a dot, 1 to 8 hex digits)",
      "9: gus: unknown option color (expected duress, card=HASH, tag=, cardtag=, from=, until=, hours=, uses=, doors=, disabled)",
      "10: hal: duress is given twice",
      "11: ian: card= is given twice",
      "12: jo: an empty option",
      "13: kim: duress takes no value",
      "14: lee: tag= needs a PIN hash",
      "15: max: cardtag= needs card=HASH",
      "16: the name holds a control character",
      "17: oz: card needs =VALUE",
      "18: pat: the card hash is locked or disabled",
    ]
    #expect(parsed.problems == expected.map { "/etc/pinpadd/codes:" + $0 })
  }

  @Test(
    "names that would show as another name or hide the line are refused, FILE:LINE: C1, bidi, BOM, a leading space"
  )
  func namesThatBreakTheFile() {
    let names = [
      "a\u{85}b", "a\u{9B}31m", "ev\u{202E}lina", "\u{FEFF}alice", " alice", "alice ",
      "zo\u{200B}e", "a\u{2028}b",
    ]
    let text = names.map { "\($0):\(Self.pin)" }.joined(separator: "\n") + "\nok:\(Self.pin)\n"
    let parsed = CodesFile.parse(Array(text.utf8), path: "/etc/pinpadd/codes")
    #expect(parsed.entries.map(\.name) == ["ok"])
    #expect(parsed.problems.count == names.count)
    for (n, problem) in parsed.problems.enumerated() {
      #expect(problem.hasPrefix("/etc/pinpadd/codes:\(n + 1): the name "), "\(problem)")
    }
    #expect(parsed.problems[2].contains("U+202E"))
    #expect(CodesFile.nameProblem(Array("#alice".utf8))?.contains("comment") == true)
    #expect(CodesFile.nameProblem(Array("Zoë Ødegård-李".utf8)) == nil)
  }

  @Test("a name that is not UTF-8 is a problem, not a crash; no hash is ever in a message")
  func notUTF8() {
    let parsed = CodesFile.parse([0xFF, 0xFE, 0x3A] + Array(Self.pin.utf8), path: "f")
    #expect(parsed.problems == ["f:1: the name is not UTF-8"])
    let many = Self.parse("a:\(Self.pin):nope\nb:\(Self.pin) x\n")
    for problem in many.problems { #expect(!problem.contains("$y$")) }
  }

  @Test("the line a person's entry writes parses back to the same entry")
  func roundTrip() {
    let entries = [
      CodesFile.Entry(name: "alice", line: 1, pinHash: Array(Self.pin.utf8)),
      CodesFile.Entry(
        name: "bob", line: 2, pinHash: Array(Self.pin.utf8), cardHash: Array(Self.card.utf8),
        duress: true, pinTag: CodeTag(option: Array("0a1b.ff".utf8)),
        cardTag: CodeTag(option: Array("0a1b.123".utf8))),
      CodesFile.Entry(name: "carol", line: 3, pinHash: nil, cardHash: Array(Self.card.utf8)),
    ]
    let parsed = Self.parse(entries.map(\.text).joined(separator: "\n"))
    #expect(parsed.problems.isEmpty)
    #expect(parsed.entries == entries)
    #expect(entries[2].text == "carol:-:card=\(Self.card)")
  }

  @Test("arbitrary bytes never crash the parser, and every problem names its line")
  func arbitraryBytes() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return state
    }
    let alphabet = Array("ab:-$y=,.#\n\r\t card=tag=duress".utf8) + [0, 0xFF, 0xC3]
    for _ in 0..<300 {
      let count = Int(next() % 200)
      let text = (0..<count).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
      let parsed = CodesFile.parse(text, path: "p")
      for problem in parsed.problems { #expect(problem.hasPrefix("p:")) }
      let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).count
      for entry in parsed.entries { #expect((1...lines).contains(entry.line)) }
    }
  }

  @Test("tag values: 4 hex digits, a dot, 1 to 8 hex digits; upper case is read as lower")
  func tagOption() {
    #expect(CodeTag(option: Array("abcd.1".utf8))?.text == "abcd.1")
    #expect(CodeTag(option: Array("ABCD.12345678".utf8))?.text == "abcd.12345678")
    for bad in ["abcd.", "abc.12", "abcd.123456789", "abcd12", "abcg.12", "abcd-12", ""] {
      #expect(CodeTag(option: Array(bad.utf8)) == nil, "\(bad)")
    }
  }
}
