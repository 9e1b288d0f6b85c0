import PinpadProgram
import Testing

/// The usage error `body` throws, as its one line; nil when it throws none.
private func usageError(_ body: () throws -> Void) -> String? {
  do { try body() } catch { return (error as? UsageError)?.description ?? "not a UsageError" }
  return nil
}

/// The one option reader of both programs.
@Suite struct ArgumentsTests {
  @Test("--name VALUE and --name=VALUE give the same value; a value may start with -")
  func bothSpellings() throws {
    var words = Arguments(["--socket", "/a", "--socket=/b", "--message", "-x", "--m=a=b"])
    var values: [String] = []
    while let word = words.next() { values.append(try words.value(of: word)) }
    #expect(values == ["/a", "/b", "-x", "a=b"])
    #expect(words.isEmpty)
  }

  @Test("an option at the end without a value is a usage error naming it")
  func missingValue() throws {
    var words = Arguments(["--codes"])
    let codes = try #require(words.peek)
    _ = words.next()
    #expect(usageError { _ = try words.value(of: codes) } == "--codes needs a value")
    var again = Arguments(["--socket"])
    let socket = try #require(again.peek)
    _ = again.next()
    #expect(
      usageError { _ = try again.value(of: socket, missing: "--socket needs a path") }
        == "--socket needs a path")
  }

  @Test("a flag refuses =VALUE; single-dash words and plain words are not split")
  func flagsAndWords() throws {
    var words = Arguments(["--help=all", "-V=1", "verdict", "a=b", "--help"])
    var read: [Arguments.Word] = []
    while let word = words.next() {
      read.append(word)
      if word.text == "verdict" { break }
    }
    #expect(read.map(\.name) == ["--help", "-V=1", "verdict"])
    #expect(read[0].inline == "all")
    #expect(usageError { try words.flag(read[0]) } == "--help takes no value")
    #expect(words.remaining == ["a=b", "--help"])
    let plain = try #require(words.peek)
    #expect(plain.inline == nil && plain.name == "a=b", "a plain word with = was split")
    _ = words.next()
    let flag = try #require(words.peek)
    #expect(usageError { try words.flag(flag) } == nil)
  }
}
