import PinpadControlCore
import PinpadCore
import Testing

@testable import PinpadControl
@testable import PinpadDaemon

/// `serve` uses a codes file only when others can neither read nor write it (issue 14).
@Suite("Codes file mode")
struct CodesFileModeTests {
  @Test("owner and group may have any access", arguments: [0o600, 0o640, 0o660, 0o400, 0o100640])
  func ownerAndGroup(mode: UInt32) {
    #expect(CodesFile.modeProblem(mode) == nil)
  }

  @Test("others reading or writing is named, with the mode")
  func others() {
    #expect(CodesFile.modeProblem(0o100644) == "others may read it (mode 0644)")
    #expect(CodesFile.modeProblem(0o602) == "others may write it (mode 0602)")
    #expect(CodesFile.modeProblem(0o666) == "others may read and write it (mode 0666)")
    #expect(CodesFile.modeProblem(0o601) == nil, "execute alone reveals nothing")
  }
}

/// Found by the codes fuzz target (fuzz/targets/codes.swift).
@Suite("Codes file lines")
struct CodesFileLineTests {
  @Test("CRLF line ends end lines: no hash keeps a CR or LF, no line is swallowed")
  func crlf() {
    let parsed = PinpadControlCore.CodesFile.parse(
      Array("# people\r\nalice:$y$abc\r\nbob:abcdefghijklm\r\n".utf8), path: "codes")
    #expect(parsed.problems == [])
    #expect(
      parsed.entries == [
        .init(name: "alice", line: 2, pinHash: Array("$y$abc".utf8)),
        .init(name: "bob", line: 3, pinHash: Array("abcdefghijklm".utf8)),
      ])
  }

  @Test("a hash with a control character left in it (a second CR) is a problem, not an entry")
  func controlInHash() {
    let parsed = PinpadControlCore.CodesFile.parse(
      Array("alice:$y$abc\r\r\nbob:$y$a\u{1B}c\n".utf8), path: "codes")
    #expect(parsed.entries == [])
    #expect(
      parsed.problems == [
        "codes:1: the hash for alice holds a byte that is not printable ASCII",
        "codes:2: the hash for bob holds a byte that is not printable ASCII",
      ])
  }
}
