import PinpadCore
import PinpadDaemon
import PinpadProgram
import Testing

private func parse(_ arguments: String) throws(UsageError) -> Options {
  try Options(parsing: arguments.split(separator: " ").map(String.init))
}

/// The usage error's line for `arguments`, nil when they parse.
private func usageError(_ arguments: [String]) -> String? {
  do {
    _ = try Options(parsing: arguments)
    return nil
  } catch {
    return error.description
  }
}

private func usageError(_ arguments: String) -> String? {
  usageError(arguments.split(separator: " ").map(String.init))
}

/// A row of a usage-error table: `arguments` are refused with `message`.
struct UsageErrorCase: Sendable, CustomTestStringConvertible {
  var name: String
  var arguments: [String]
  var message: String
  var testDescription: String { name }
}

@Suite("Options")
struct OptionsTests {
  // MARK: - Defaults

  @Test("no arguments run the daemon with the defaults")
  func defaults() throws {
    let options = try Options(parsing: [])
    #expect(options.mode == .run)
    #expect(options.configPath == "/etc/pinpadd/pinpadd.conf")
    #expect(options.configPathGiven == false)
    #expect(options.inputs.isEmpty)
    #expect(options.display == nil)
    #expect(options.socketPath == nil)
    #expect(options.stateDirectory == "/var/lib/pinpadd")
    #expect(options.logLevel == .info)
  }

  // MARK: - Flags with values

  @Test("--config sets the file and marks it as given")
  func config() throws {
    let options = try parse("--config /tmp/p.conf")
    #expect(options.configPath == "/tmp/p.conf")
    #expect(options.configPathGiven)
  }

  @Test("--socket sets the socket path")
  func socket() throws {
    #expect(try parse("--socket /run/x.sock").socketPath == "/run/x.sock")
  }

  @Test("--state-dir sets the state directory")
  func stateDirectory() throws {
    #expect(try parse("--state-dir /tmp/state").stateDirectory == "/tmp/state")
  }

  @Test(
    "--log-level takes each level",
    arguments: [
      ("error", LogLevel.error), ("warning", .warning), ("info", .info), ("debug", .debug),
    ]
  )
  func logLevel(name: String, level: LogLevel) throws {
    #expect(try parse("--log-level \(name)").logLevel == level)
  }

  @Test(
    "--input takes each kind of source",
    arguments: [
      ("auto", InputSpec.auto), ("terminal", .terminal),
      ("/dev/input/event3", .device(path: "/dev/input/event3")),
      ("/dev/input/by-id/usb-Pad-event-kbd", .device(path: "/dev/input/by-id/usb-Pad-event-kbd")),
      ("replay:/tmp/keys.evemu", .replay(path: "/tmp/keys.evemu", fast: false)),
      ("replay-fast:/tmp/keys.evemu", .replay(path: "/tmp/keys.evemu", fast: true)),
      ("replay:rel/keys", .replay(path: "rel/keys", fast: false)),
      ("replay:a:b", .replay(path: "a:b", fast: false)),
    ])
  func input(text: String, spec: InputSpec) throws {
    #expect(try parse("--input \(text)").inputs == [spec])
  }

  @Test("--input repeats, keeping the order")
  func repeatedInputs() throws {
    let options = try parse("--input /dev/input/event3 --input terminal --input replay:r")
    #expect(
      options.inputs == [
        .device(path: "/dev/input/event3"), .terminal, .replay(path: "r", fast: false),
      ])
  }

  @Test(
    "--display takes each kind of output",
    arguments: [
      ("auto", DisplaySpec.auto), ("none", .none), ("fb", .framebuffer(device: nil)),
      ("fb:/dev/fb1", .framebuffer(device: "/dev/fb1")), ("fb:", .framebuffer(device: nil)),
      ("drm", .drm(card: nil)), ("drm:/dev/dri/card1", .drm(card: "/dev/dri/card1")),
      ("console", .console(tty: nil)), ("console:/dev/tty2", .console(tty: "/dev/tty2")),
      ("console:", .console(tty: nil)),
      ("snapshot:/tmp/frames", .snapshot(directory: "/tmp/frames")),
    ])
  func display(text: String, spec: DisplaySpec) throws {
    #expect(try parse("--display \(text)").display == spec)
  }

  @Test("a later --display wins over an earlier one")
  func laterDisplayWins() throws {
    #expect(try parse("--display none --display fb").display == .framebuffer(device: nil))
  }

  @Test(
    "--flag=value means the same as --flag value",
    arguments: [
      "--config=/tmp/p.conf", "--input=terminal", "--display=fb:/dev/fb1", "--socket=/run/x.sock",
      "--state-dir=/tmp/s", "--log-level=debug",
    ])
  func inlineValues(argument: String) throws {
    let inline = try Options(parsing: [argument])
    let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
    let separate = try Options(parsing: parts)
    #expect(inline.configPath == separate.configPath)
    #expect(inline.configPathGiven == separate.configPathGiven)
    #expect(inline.inputs == separate.inputs)
    #expect(inline.display == separate.display)
    #expect(inline.socketPath == separate.socketPath)
    #expect(inline.stateDirectory == separate.stateDirectory)
    #expect(inline.logLevel == separate.logLevel)
  }

  @Test("an inline value keeps any further equals signs")
  func inlineValueWithEquals() throws {
    #expect(try Options(parsing: ["--socket=/run/a=b.sock"]).socketPath == "/run/a=b.sock")
  }

  @Test("a value may be empty when given inline")
  func emptyInlineValue() throws {
    #expect(try Options(parsing: ["--state-dir="]).stateDirectory == "")
  }

  @Test("a value may start with dashes when given separately")
  func dashedValue() throws {
    #expect(try Options(parsing: ["--socket", "--odd"]).socketPath == "--odd")
  }

  // MARK: - Modes

  @Test(
    "each mode flag selects its mode",
    arguments: [
      ("--check-config", Options.Mode.checkConfig), ("--list-devices", .listDevices),
      ("--version", .version), ("-V", .version), ("--help", .help),
      ("-h", .help),
    ])
  func modes(flag: String, mode: Options.Mode) throws {
    #expect(try parse(flag).mode == mode)
  }

  @Test("--check-config takes --config")
  func checkConfigWithConfig() throws {
    let options = try parse("--check-config --config /tmp/p.conf")
    #expect(options.mode == .checkConfig)
    #expect(options.configPath == "/tmp/p.conf")
  }

  @Test("a full daemon command line parses")
  func fullCommandLine() throws {
    let options = try parse(
      "--config /c --input /dev/input/event1 --input replay-fast:/r --display snapshot:/d "
        + "--socket /s --state-dir /v --log-level warning")
    #expect(options.mode == .run)
    #expect(options.configPath == "/c")
    #expect(
      options.inputs == [.device(path: "/dev/input/event1"), .replay(path: "/r", fast: true)])
    #expect(options.display == .snapshot(directory: "/d"))
    #expect(options.socketPath == "/s")
    #expect(options.stateDirectory == "/v")
    #expect(options.logLevel == .warning)
  }

  // MARK: - Usage errors

  @Test(
    "bad command lines are usage errors with one clear line",
    arguments: [
      UsageErrorCase(
        name: "unknown flag", arguments: ["--verbose"],
        message: "unknown argument --verbose (see pinpadd --help)"),
      UsageErrorCase(
        name: "unknown flag with a value", arguments: ["--colour=yes"],
        message: "unknown argument --colour=yes (see pinpadd --help)"),
      UsageErrorCase(
        name: "a single-dash flag", arguments: ["-v"],
        message: "unknown argument -v (see pinpadd --help)"),
      UsageErrorCase(
        name: "a positional argument", arguments: ["run"],
        message: "unknown argument run (see pinpadd --help)"),
      UsageErrorCase(
        name: "flags are case sensitive", arguments: ["--Config", "x"],
        message: "unknown argument --Config (see pinpadd --help)"),
      UsageErrorCase(
        name: "missing --config value", arguments: ["--config"],
        message: "--config needs a value"),
      UsageErrorCase(
        name: "missing --input value", arguments: ["--input"], message: "--input needs a value"),
      UsageErrorCase(
        name: "missing --display value", arguments: ["--display"],
        message: "--display needs a value"),
      UsageErrorCase(
        name: "missing --socket value", arguments: ["--socket"],
        message: "--socket needs a value"),
      UsageErrorCase(
        name: "missing --state-dir value", arguments: ["--state-dir"],
        message: "--state-dir needs a value"),
      UsageErrorCase(
        name: "missing --log-level value", arguments: ["--log-level"],
        message: "--log-level needs a value"),
      UsageErrorCase(
        name: "bad --log-level", arguments: ["--log-level", "verbose"],
        message: "--log-level verbose: expected error, warning, info or debug"),
      UsageErrorCase(
        name: "--log-level in capitals", arguments: ["--log-level=DEBUG"],
        message: "--log-level DEBUG: expected error, warning, info or debug"),
      UsageErrorCase(
        name: "bad --input", arguments: ["--input", "event3"],
        message:
          "--input event3: expected auto, terminal, a device path, replay:FILE or replay-fast:FILE"
      ),
      UsageErrorCase(
        name: "empty --input", arguments: ["--input="],
        message: "--input : expected auto, terminal, a device path, replay:FILE or replay-fast:FILE"
      ),
      UsageErrorCase(
        name: "--input replay without a file", arguments: ["--input", "replay:"],
        message: "--input replay:: the recording's path is missing"),
      UsageErrorCase(
        name: "--input replay-fast without a file", arguments: ["--input", "replay-fast:"],
        message: "--input replay-fast:: the recording's path is missing"),
      UsageErrorCase(
        name: "bad --display", arguments: ["--display", "vga"],
        message:
          "--display vga: expected auto, drm[:CARD], fb[:DEVICE], console[:TTY], none or snapshot:DIR"
      ),
      UsageErrorCase(
        name: "--display snapshot without a directory", arguments: ["--display", "snapshot:"],
        message:
          "--display snapshot:: expected auto, drm[:CARD], fb[:DEVICE], console[:TTY], none or snapshot:DIR"
      ),
      UsageErrorCase(
        name: "--display snapshot without a colon", arguments: ["--display", "snapshot"],
        message:
          "--display snapshot: expected auto, drm[:CARD], fb[:DEVICE], console[:TTY], none or snapshot:DIR"
      ),
      UsageErrorCase(
        name: "two modes", arguments: ["--version", "--help"],
        message: "choose one of --check-config, --list-devices, --version, --help"),
      UsageErrorCase(
        name: "a mode twice", arguments: ["--check-config", "--check-config"],
        message: "choose one of --check-config, --list-devices, --version, --help"),
      UsageErrorCase(
        name: "--check-config with --list-devices",
        arguments: ["--check-config", "--list-devices"],
        message: "choose one of --check-config, --list-devices, --version, --help"),
      UsageErrorCase(
        name: "--check-config with --input", arguments: ["--check-config", "--input", "terminal"],
        message: "--input, --display and --socket only apply when running the daemon"),
      UsageErrorCase(
        name: "--check-config with --display", arguments: ["--display", "none", "--check-config"],
        message: "--input, --display and --socket only apply when running the daemon"),
      UsageErrorCase(
        name: "--list-devices with --socket", arguments: ["--list-devices", "--socket", "/s"],
        message: "--input, --display and --socket only apply when running the daemon"),
      UsageErrorCase(
        name: "--input auto with another input",
        arguments: ["--input", "auto", "--input", "/dev/input/event3"],
        message: "--input auto cannot be combined with other inputs"),
      UsageErrorCase(
        name: "a mode flag with a value", arguments: ["--version=2"],
        message: "--version takes no value"),
      UsageErrorCase(
        name: "--help with a value", arguments: ["--help=all"], message: "--help takes no value"),
      UsageErrorCase(
        name: "--check-config with a value", arguments: ["--check-config=yes"],
        message: "--check-config takes no value"),
    ])
  func usageErrors(_ row: UsageErrorCase) {
    #expect(usageError(row.arguments) == row.message)
  }

  @Test("a usage error is one line")
  func oneLine() {
    for arguments in ["--bogus", "--input nowhere", "--version --help", "--log-level"] {
      let message = usageError(arguments)
      #expect(message != nil)
      #expect(message?.contains("\n") == false)
    }
  }

  @Test("the usage text lists every flag")
  func usageListsFlags() {
    for flag in [
      "--config", "--input", "--display", "--socket", "--state-dir", "--log-level",
      "--check-config", "--list-devices", "--version", "--help",
    ] {
      #expect(Options.usage.contains(flag), "\(flag)")
    }
  }
}
