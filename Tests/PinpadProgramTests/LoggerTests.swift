import PinpadCore
import Testing

@testable import PinpadProgram

/// A log message is one line, whatever it holds (the log of pinpadd(8), OPTIONS,
/// --log-level).
@Suite struct LoggerTests {
  @Test(arguments: [
    ("plain text", "plain text"), ("two\nlines", "two lines"), ("cr\rlf\r\n", "cr lf  "),
    ("日本\n語", "日本 語"), ("", ""),
  ])
  func newlinesInAMessageBecomeSpaces(_ text: String, _ line: String) {
    #expect(text.replacingNewlines() == line)
  }

  @Test func aDivertedLineIsOneLineAndALevelBelowTheLoggersIsNotBuilt() {
    let log = Logger(level: .info, sink: MemoryLogSink())
    var seen: [String] = []
    log.divert = { _, line in seen.append(line) }
    var built = false
    log.debug(
      {
        built = true
        return "debug"
      }())
    log.info("a\nb")
    #expect(!built)
    #expect(seen == ["a b"])
  }
}
