import PinpadControlCore
import PinpadCore
import PinpadProgram
import Testing

@testable import PinpadControl

/// Each command's words parsed into its `Options` and validated, with the usage errors
/// (exit 64) they print: pinpadctl(1), SYNOPSIS.
@Suite struct OptionsTests {
  /// The message of the usage error `body` throws, nil when it throws none.
  static func refusal<T>(_ body: () throws -> T) -> String? {
    do {
      _ = try body()
      return nil
    } catch {
      return "\(error)"
    }
  }

  // MARK: the options before the command

  @Test func theGlobalOptionsDefaultToTheSocketOf5Seconds() throws {
    let options = try ControlMain.Options.parse(["status"])
    #expect(options.socketPath == "/run/pinpadd/pinpadd.sock")
    #expect(options.timeout == 5)
    #expect(options.command == "status")
    #expect(options.arguments.isEmpty)
  }

  @Test func socketAndTimeoutComeBeforeTheCommandWhichKeepsItsWords() throws {
    let options = try ControlMain.Options.parse(
      ["--socket", "/s", "--timeout=2.5", "verdict", "a1", "granted", "--socket", "x"])
    #expect(options.socketPath == "/s")
    #expect(options.timeout == 2.5)
    #expect(options.command == "verdict")
    #expect(options.arguments == ["a1", "granted", "--socket", "x"])
  }

  @Test func pinpadctlTimeoutIsTheDefaultAndTimeoutWins() throws {
    #expect(try ControlMain.Options.parse(["status"], timeoutVariable: "60").timeout == 60)
    #expect(
      try ControlMain.Options.parse(["--timeout", "1", "status"], timeoutVariable: "60").timeout
        == 1)
  }

  @Test(arguments: ["0", "-1", "3601", "x", ""])
  func aTimeoutOutOfRangeIsRefused(text: String) {
    #expect(
      Self.refusal { try ControlMain.Options.parse(["--timeout", text, "status"]) }
        == "--timeout takes seconds from 0 to 3600, not \(text)")
    #expect(
      Self.refusal { try ControlMain.Options.parse(["status"], timeoutVariable: text) }
        == "PINPADCTL_TIMEOUT takes seconds from 0 to 3600, not \(text)")
  }

  @Test func aSocketOrTimeoutWithoutItsValueIsRefused() {
    #expect(Self.refusal { try ControlMain.Options.parse(["--socket"]) } == "--socket needs a path")
    #expect(
      Self.refusal { try ControlMain.Options.parse(["--timeout"]) } == "--timeout needs seconds")
  }

  @Test func aCommandIsNeeded() throws {
    let options = try ControlMain.Options.parse(["--socket", "/s"])
    #expect(Self.refusal { try options.validate() } == "a command is needed")
  }

  // MARK: serve

  @Test func serveReadsEveryOption() throws {
    let options = try ServeCommand.Options.parse([
      "--codes", "/c", "--key=/k", "--state-dir", "/s", "--keep-days", "30", "--config", "/f",
      "--mqtt", "--topics", "a/+/+/code",
    ])
    var expected = ServeCommand.Options()
    expected.codes = "/c"
    expected.key = "/k"
    expected.stateDirectory = "/s"
    expected.keepDays = 30
    expected.config = "/f"
    expected.mqtt = true
    expected.topics = "a/+/+/code"
    #expect(options == expected)
    #expect(throws: Never.self) { try options.validate() }
    #expect(options.configPath == "/f")
  }

  @Test func serveDefaultsToTheStandardConfigAndBound() throws {
    let options = try ServeCommand.Options.parse(["--codes", "/c"])
    #expect(options.configPath == "/etc/pinpadd/pinpadd.conf")
    #expect(options.keepDays == 365)
    #expect(options.globalBound == .standard)
    #expect(!options.mqtt)
  }

  @Test func serveRefusesAWordItDoesNotKnowWithItsUsage() {
    #expect(
      Self.refusal { try ServeCommand.Options.parse(["--codes", "/c", "--fast"]) }
        == "serve --codes FILE [--key FILE] [--state-dir DIR] [--keep-days N] [--config FILE]"
        + " [--mqtt [--topics FILTER] [--sign-key KEY]] (unexpected --fast)")
  }

  @Test func serveSignKeyGoesWithMqttAndNamesAFile() throws {
    let alone = try ServeCommand.Options.parse(["--codes", "/c", "--sign-key", "/k"])
    #expect(alone.signKey == "/k")
    #expect(Self.refusal { try alone.validate() } == "serve: --sign-key goes with --mqtt")
    let empty = try ServeCommand.Options.parse(["--codes", "/c", "--mqtt", "--sign-key", ""])
    #expect(Self.refusal { try empty.validate() } == "serve: --sign-key needs a key file")
    let site = try ServeCommand.Options.parse(["--codes", "/c", "--mqtt", "--sign-key", "/k"])
    #expect(throws: Never.self) { try site.validate() }
  }

  @Test func serveTopicsGoWithMqtt() throws {
    let options = try ServeCommand.Options.parse(["--codes", "/c", "--topics", "x"])
    #expect(Self.refusal { try options.validate() } == "serve: --topics goes with --mqtt")
  }

  @Test(arguments: [[], ["--codes", ""]])
  func serveNeedsCodes(arguments: [String]) throws {
    let options = try ServeCommand.Options.parse(arguments)
    #expect(Self.refusal { try options.validate() } == "serve needs --codes FILE")
  }

  @Test func serveRefusesAnEmptyStateDirectory() throws {
    let options = try ServeCommand.Options.parse(["--codes", "/c", "--state-dir="])
    #expect(Self.refusal { try options.validate() } == "serve: --state-dir needs a directory")
  }

  @Test(arguments: ["0", "36501", "x", "-3"])
  func keepDaysIsANumberOfDaysFrom1To36500(text: String) {
    #expect(
      Self.refusal { try ServeCommand.Options.parse(["--keep-days", text]) }
        == "--keep-days takes a number of days from 1 to 36500")
  }

  @Test func theGlobalBoundIsDenialsSlashSeconds() throws {
    let options = try ServeCommand.Options.parse(["--codes", "/c"], globalBound: "50/3600")
    #expect(options.globalBound == .init(burst: 50, interval: .seconds(3600)))
  }

  @Test(arguments: ["50", "0/5", "50/0", "a/b", "50/5/1", "", "100001/5", "50/86401"])
  func aGlobalBoundThatIsNotDenialsSlashSecondsIsRefused(text: String) {
    #expect(
      Self.refusal { try ServeCommand.Options.parse([], globalBound: text) }
        == "PINPADCTL_GLOBAL_BOUND takes DENIALS/SECONDS (1 to 100000 / 1 to 86400), not \(text)")
  }

  // MARK: hash

  @Test func hashReadsTheNameFlagsAndRules() throws {
    let options = try HashCommand.Options.parse([
      "alice", "--card", "--duress", "--codes", "/c", "--key", "/k", "--config", "/f",
      "--uses", "3", "--doors", "front+back", "--disabled",
    ])
    #expect(options.name == "alice")
    #expect(options.withCard && options.duress)
    #expect(options.codes == "/c" && options.key == "/k" && options.config == "/f")
    #expect(options.rules.options == ["uses=3", "doors=front+back", "disabled"])
    #expect(throws: Never.self) { try options.validate() }
  }

  @Test func hashWithoutANameMakesALineForCode() throws {
    #expect(try HashCommand.Options.parse([]).who == "code")
  }

  @Test func hashRefusesARuleItCannotRead() {
    #expect(
      Self.refusal { try HashCommand.Options.parse(["x", "--hours", "Mon"]) }
        == "hash: hours= is not DAYS@HHMM-HHMM[+...] (e.g. Mon-Fri@0700-1900+Sat@0900-1300)")
    #expect(
      Self.refusal { try HashCommand.Options.parse(["x", "--uses", "1", "--uses", "2"]) }
        == "hash: uses= is given twice")
  }

  @Test(arguments: [["a", "b"], ["--nope"]])
  func hashRefusesASecondNameOrAnUnknownOption(arguments: [String]) {
    let refusal = Self.refusal { try HashCommand.Options.parse(arguments) }
    #expect(refusal?.hasPrefix(HashCommand.usage + " (unexpected ") == true, "\(refusal ?? "")")
  }

  @Test(
    arguments: [
      ("a:b", "pinpadctl hash: the name must not hold a colon or a space"),
      ("a b", "pinpadctl hash: the name must not hold a colon or a space"),
      ("#a", "pinpadctl hash: the name starts with #, which would make the line a comment"),
      ("a\u{202E}b", "pinpadctl hash: the name holds an invisible formatting character"),
    ])
  func hashRefusesANameTheCodesFileCannotHoldInOneLine(name: String, message: String) throws {
    let options = try HashCommand.Options.parse([name])
    let refusal = Self.refusal { try options.validate() }
    #expect(refusal?.hasPrefix(message) == true, "\(refusal ?? "")")
  }

  // MARK: log

  static let now: Int64 = 1_800_000_000_000

  @Test func logReadsItsFilterAndOutput() throws {
    let options = try LogCommand.Options.parse(
      [
        "--since", "2d", "--until", "1h", "--person", "alice", "--door", "d/front", "--json",
        "--keep-days", "7", "--state-dir", "/s",
      ], now: Self.now, zone: .utc)
    #expect(options.filter.since == Self.now - 2 * 86_400_000)
    #expect(options.filter.until == Self.now - 3_600_000)
    #expect(options.filter.person == "alice" && options.filter.door == "d/front")
    #expect(options.json && options.keepDays == 7 && options.stateDirectory == "/s")
    #expect(throws: Never.self) { try options.validate() }
  }

  @Test func logReadsDatesInItsZone() throws {
    let options = try LogCommand.Options.parse(
      ["--since", "2026-06-01", "--until", "2026-06-01T1230"], now: Self.now,
      zone: LocalZone { _ in 3600 })
    let midnight = CivilCalendar.days(year: 2026, month: 6, day: 1) * 86_400_000
    #expect(options.filter.since == midnight - 3_600_000)
    #expect(options.filter.until == midnight + 11 * 3_600_000 + 30 * 60_000)
  }

  @Test func logRefusesATimeItCannotRead() {
    #expect(
      Self.refusal { try LogCommand.Options.parse(["--since", "yesterday"], now: 0, zone: .utc) }
        == "log: yesterday is not a time: YYYY-MM-DD, YYYY-MM-DDTHHMM, or Nd, Nh, Nm ago")
  }

  @Test func logRefusesAWordItDoesNotKnowWithItsUsage() {
    #expect(
      Self.refusal { try LogCommand.Options.parse(["--all"], now: 0, zone: .utc) }
        == "\(LogCommand.usage) (unexpected --all)")
    #expect(
      Self.refusal { try LogCommand.Options.parse(["--keep-days", "0"], now: 0, zone: .utc) }
        == "--keep-days takes a number of days from 1 to 36500")
  }

  // MARK: mqtt

  @Test func mqttReadsItsConfigOrHelp() throws {
    #expect(try MQTTCommand.Options.parse([]) == MQTTCommand.Options())
    #expect(try MQTTCommand.Options.parse([]).configPath == "/etc/pinpadd/pinpadd.conf")
    #expect(try MQTTCommand.Options.parse(["--config=/f"]).config == "/f")
    #expect(try MQTTCommand.Options.parse(["--config=/f"]).configPath == "/f")
    #expect(try MQTTCommand.Options.parse(["-h", "--bad"]).help)
  }

  @Test func mqttStateDirIsGivenOrTheEnvironmentsOrTheStandardOne() throws {
    #expect(try MQTTCommand.Options.parse(["--state-dir", "/s"]).stateDirectory == "/s")
    #expect(
      ControllerStateDirectory.resolve(nil, environment: "/e:/f", standard: "/var/lib/x") == "/e")
    #expect(
      ControllerStateDirectory.resolve(nil, environment: nil, standard: "/var/lib/x")
        == "/var/lib/x")
    #expect(
      Self.refusal { try MQTTCommand.Options.parse(["--state-dir"]) }
        == "--state-dir needs a directory")
  }

  @Test func mqttRefusesWhatItDoesNotKnow() {
    #expect(
      Self.refusal { try MQTTCommand.Options.parse(["--config"]) } == "--config needs a file")
    #expect(
      Self.refusal { try MQTTCommand.Options.parse(["x"]) }
        == "mqtt [--config FILE] (unexpected x)")
  }
}
