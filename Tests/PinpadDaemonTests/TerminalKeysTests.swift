import PinpadCore
import PinpadDaemon
import Testing

private func keys(_ bytes: [UInt8]) -> [KeyCode?] {
  TerminalInput.keys(in: bytes[...])
}

private func keys(_ text: String) -> [KeyCode?] { keys(Array(text.utf8)) }

private func key(_ name: String) -> KeyCode { KeyCode(name: name)! }

private let esc: UInt8 = 0x1B

@Suite("Terminal keys")
struct TerminalKeysTests {
  @Test("digits are the main-row digit keys")
  func digits() {
    #expect(keys("1234567890") == (1...10).map { KeyCode.mainRow(UInt8($0 % 10)) })
    #expect(keys("7") == [key("KEY_7")])
    #expect(keys("0") == [key("KEY_0")])
  }

  @Test("typed digits read as the digits they show")
  func digitValues() {
    #expect(keys("0123456789").map { $0?.digit } == (0...9).map { UInt8($0) })
  }

  @Test("Enter is read from CR and from LF", arguments: [0x0D, 0x0A] as [UInt8])
  func enter(byte: UInt8) {
    #expect(keys([byte]) == [.enter])
  }

  @Test("Backspace is read from DEL and from Ctrl-H", arguments: [0x7F, 0x08] as [UInt8])
  func backspace(byte: UInt8) {
    #expect(keys([byte]) == [.backspace])
  }

  @Test("Ctrl-C is nil: stop")
  func ctrlC() {
    #expect(keys([0x03]) == [nil])
    #expect(keys([0x31, 0x03, 0x32]) == [.mainRow(1), nil, .mainRow(2)])
  }

  @Test("* clears and . reveals, as on a numeric keypad")
  func asteriskAndDot() {
    #expect(keys("*") == [.kpAsterisk])
    #expect(keys(".") == [.kpDot])
  }

  @Test("a lone Esc is KEY_ESC")
  func loneEsc() {
    #expect(keys([esc]) == [.esc])
    #expect(keys([esc, 0x31]) == [.esc, .mainRow(1)])
    #expect(keys([esc, esc]) == [.esc, .esc])
  }

  @Test(
    "arrow, function and editing keys are skipped whole",
    arguments: [
      "[A", "[B", "[C", "[D",  // arrows (CSI)
      "OA", "OD",  // arrows in application mode (SS3)
      "OP", "[15~", "[24~",  // F1, F5, F12
      "[3~", "[2~", "[H", "[F",  // Delete, Insert, Home, End
      "[1;5C", "[1;2A",  // Ctrl-Right, Shift-Up
      "[200~",  // bracketed paste start
    ])
  func escapeSequencesSkipped(sequence: String) {
    let bytes = [esc] + Array(sequence.utf8)
    #expect(keys(bytes).isEmpty)
    #expect(keys(Array("1".utf8) + bytes + Array("2".utf8)) == [.mainRow(1), .mainRow(2)])
  }

  @Test("a sequence cut off at the end of a read is dropped without a key")
  func truncatedSequence() {
    #expect(keys([esc, UInt8(ascii: "[")]).isEmpty)
    #expect(keys([esc, UInt8(ascii: "["), UInt8(ascii: "1"), UInt8(ascii: ";")]).isEmpty)
  }

  @Test("letters are their letter keys, in either case")
  func letters() {
    #expect(keys("a") == [key("KEY_A")])
    #expect(keys("Z") == [key("KEY_Z")])
    #expect(keys("q") == keys("Q"))
  }

  @Test("letters are never digits, Enter or a control key")
  func lettersAreNotControls() {
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    #expect(keys(letters).count == letters.count, "one key per letter")
    for key in keys(letters) {
      #expect(key != nil)
      #expect(key?.digit == nil)
      #expect(![KeyCode.enter, .backspace, .esc, .kpAsterisk, .kpDot].contains(key!))
    }
  }

  @Test("space is KEY_SPACE")
  func space() {
    #expect(keys(" ") == [key("KEY_SPACE")])
  }

  @Test(
    "other bytes are an unknown key, never a digit or control", arguments: ["!", "#", "é", "\t"])
  func otherBytes(text: String) {
    let read = keys(text)
    #expect(!read.isEmpty)
    #expect(read.allSatisfy { $0 == key("KEY_UNKNOWN") })
  }

  @Test("a typed code with Enter reads in order")
  func typedCode() {
    #expect(
      keys("0042\r") == [.mainRow(0), .mainRow(0), .mainRow(4), .mainRow(2), .enter])
  }

  @Test("a read that is a slice of a larger buffer is read from its own start")
  func slice() {
    let buffer = Array("xx12\ryy".utf8)
    #expect(TerminalInput.keys(in: buffer[2..<5]) == [.mainRow(1), .mainRow(2), .enter])
  }

  @Test("an empty read gives no keys")
  func emptyRead() {
    #expect(keys([]).isEmpty)
  }
}
