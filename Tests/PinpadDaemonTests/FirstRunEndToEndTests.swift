import Foundation
import Glibc
import PinpadCore
import PinpadDaemon
import PinpadInput
import PinpadProgram
import PinpadScreen
import PinpadSystem
import PinpadTestSupport
import Testing

/// Issue 14: what a new user meets on the first run — `make run` on a terminal, the
/// versions, an empty device list, late verdicts, the codes file's permissions.
@Suite struct FirstRunEndToEndTests {
  /// The repository's root (this file is Tests/PinpadDaemonTests/...).
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  /// pinpadd on `terminal` with `--input terminal --display console`; stderr to a file,
  /// or to the terminal too with `logOnTerminal`.
  static func startOnTerminal(
    _ terminal: PseudoTerminal, dir: TempDir, logOnTerminal: Bool = false
  ) throws -> Process {
    try terminal.start(
      E2E.pinpadd,
      [
        "--config", dir.write("pinpadd.conf", ""), "--input", "terminal", "--display", "console",
        "--socket", dir.file("pinpadd.sock"), "--state-dir", dir.file("state"),
      ],
      stderr: logOnTerminal ? nil : FileHandle(forWritingAtPath: dir.write("daemon.log", "")))
  }

  @Test func keysTypedBeforeTheDaemonIsReadyAreDiscardedNotSubmitted() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    terminal.type("1357\r")  // waiting in the terminal before pinpadd even starts
    let process = try Self.startOnTerminal(terminal, dir: dir)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var screen = terminal.readAll(timeout: 10) { $0.contains("Ctrl-C quits") }
    #expect(E2E.waitUntil(timeout: 5) { dir.read("daemon.log").contains(" ready") })
    let client = try TestClient(path: dir.file("pinpadd.sock"))
    terminal.type("2468\r")
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    #expect(code.string("code") == "2468", "the type-ahead was submitted")
    terminal.type("\u{03}")
    screen += terminal.readAll(timeout: 5)
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    #expect(dir.read("daemon.log").components(separatedBy: "code submitted").count == 2)
    // The tty may echo 1357 before pinpadd runs (the kernel echoes asynchronously, so
    // the flush can come first); if it did, the first frame clears it away. Nothing
    // typed afterwards is echoed.
    if let echo = screen.range(of: "1357", options: .backwards) {
      #expect(screen[echo.upperBound...].contains("\u{1B}[2J"), "the echo stays on screen")
    }
    #expect(!shows("2468", in: screen), "a typed code was echoed")
  }

  @Test func theTerminalScreenShowsTheKeysAndNoDigitInTheHint() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    let process = try Self.startOnTerminal(terminal, dir: dir)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    let raw = terminal.readAll(timeout: 10) { $0.contains("Ctrl-C quits") }
    terminal.type("\u{03}")
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    // (The read may stop between the line's CR and LF.)
    let lines = PseudoTerminal.strippingEscapes(raw).components(separatedBy: "\r\n")
      .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
    let hint = try #require(lines.first { $0.contains("Ctrl-C quits") })
    #expect(
      hint == "  digits then Enter, Backspace deletes, Esc/* clears, . reveals, Ctrl-C quits")
    #expect(lines.firstIndex(of: hint)! > lines.firstIndex { $0.contains("[_]") }!)
  }

  @Test func logLinesOnTheScreensTerminalGoToItsStatusLineNotOverTheEntry() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    let process = try Self.startOnTerminal(terminal, dir: dir, logOnTerminal: true)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var raw = terminal.readAll(timeout: 10) { $0.contains(" ready") }
    let client = try TestClient(path: dir.file("pinpadd.sock"))
    raw += terminal.readAll(timeout: 5) { $0.contains("client 1 connected") }
    client.close()
    terminal.type("\u{03}")
    raw += terminal.readAll(timeout: 5)
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    for message in ["ready", "client 1 connected"] {
      var found = 0
      var rest = raw[...]
      while let at = rest.range(of: message) {
        // The status line: the dim marker, two spaces in, then the line; in a frame.
        let line = rest[..<at.lowerBound].components(separatedBy: "\r\n").last ?? ""
        #expect(line.hasPrefix("  " + ConsoleRenderer.dim), "not on the status line: \(line)")
        found += 1
        rest = rest[at.upperBound...]
      }
      #expect(found > 0, "\(message) not shown:\n\(raw)")
    }
  }

  /// The README's first minute: `make run` (here its script, without the build), the
  /// demo code granted, another denied, Ctrl-C, all on one terminal.
  @Test func makeRunGrantsTheDemoCodeDeniesOthersAndStopsOnCtrlC() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      Self.root + "/tools/run-demo.sh", "--no-build", E2E.binDirectory, dir.file("run"),
      Self.root + "/examples/pinpadd.conf",
    ]
    process.standardInput = terminal.follower
    process.standardOutput = terminal.follower
    process.standardError = terminal.follower
    try process.run()
    terminal.closeFollower()
    defer {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      for pid in Self.processes(mentioning: dir.path) { kill(pid, SIGKILL) }
    }
    var screen = terminal.readAll(timeout: 15) { $0.contains("Ctrl-C quits") }
    #expect(
      E2E.waitUntil(timeout: 5) { dir.read("run/serve.log").contains("connected to") },
      "\(dir.read("run/serve.log"))")
    terminal.type("1234\r")
    screen += terminal.readAll(timeout: 10) { $0.contains("Access granted") }
    terminal.type("9999\r")
    screen += terminal.readAll(timeout: 10) { $0.contains("Denied") }
    let text = PseudoTerminal.strippingEscapes(screen)
    #expect(text.contains("Access granted"), "\(text)")
    #expect(text.contains("Denied"), "\(text)")
    #expect(!shows("1234", in: text) && !shows("9999", in: text), "a code on screen:\n\(text)")
    #expect(!text.contains("socket:"), "a log line on screen:\n\(text)")
    terminal.type("\u{03}")
    let after = terminal.readAll(timeout: 10)
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    #expect(process.terminationStatus == 0, "\(after)")
    #expect(after.contains("The demo controller granted 1234"), "\(after)")
    // The codes file holds a hash only and is for its owner alone; the logs no code.
    let codes = dir.read("run/codes")
    #expect(codes.hasPrefix("demo:$y$") && !shows("1234", in: codes))
    let mode =
      (try FileManager.default.attributesOfItem(atPath: dir.file("run/codes"))[
        .posixPermissions] as? Int) ?? 0
    #expect(mode & 0o077 == 0)
    for log in ["run/pinpadd.log", "run/serve.log"] {
      #expect(!shows("1234", in: dir.read(log)) && !shows("9999", in: dir.read(log)))
    }
    #expect(dir.read("run/serve.log").contains("granted (demo)"))
    #expect(dir.read("run/serve.log").contains(": denied"))
    // pinpadd removed its socket, and the demo controller went away with it.
    #expect(!FileManager.default.fileExists(atPath: dir.file("run/pinpadd.sock")))
    #expect(E2E.waitUntil(timeout: 5) { Self.processes(mentioning: dir.path).isEmpty })
  }

  @Test func makeRunWithoutTheDemoControllerTakesAVerdictByHand() throws {
    let dir = TempDir()
    let terminal = try PseudoTerminal()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      Self.root + "/tools/run-demo.sh", "--no-build", E2E.binDirectory, dir.file("run"),
      Self.root + "/examples/pinpadd.conf",
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(["DEMO": "no"]) { $1 }
    process.standardInput = terminal.follower
    process.standardOutput = terminal.follower
    process.standardError = terminal.follower
    try process.run()
    terminal.closeFollower()
    defer {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      for pid in Self.processes(mentioning: dir.path) { kill(pid, SIGKILL) }
    }
    var screen = terminal.readAll(timeout: 15) { $0.contains("Ctrl-C quits") }
    let listener = try TestClient(path: dir.file("run/pinpadd.sock"))
    terminal.type("4321\r")
    let code = try #require(try listener.waitFor("code", timeout: 5)).message
    let answer = try runProgram(
      E2E.pinpadctl,
      ["--socket", dir.file("run/pinpadd.sock"), "verdict", code.string("id")!, "granted"])
    #expect(answer.status == 0, "\(answer.stderr)")
    screen += terminal.readAll(timeout: 10) { $0.contains("Access granted") }
    #expect(screen.contains("Access granted"))
    #expect(!FileManager.default.fileExists(atPath: dir.file("run/codes")))
    terminal.type("\u{03}")
    _ = terminal.readAll(timeout: 10)
    #expect(E2E.waitUntil(timeout: 5) { !process.isRunning })
    #expect(process.terminationStatus == 0)
  }

  /// The processes whose command line holds `text` (the test's own temp folder).
  static func processes(mentioning text: String) -> [Int32] {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return pids.compactMap { name in
      guard let pid = Int32(name), pid != getpid(),
        let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"),
        String(decoding: data, as: UTF8.self).contains(text)
      else { return nil }
      return pid
    }
  }

  @Test(arguments: ["--version", "-V"])
  func bothProgramsPrintTheOneVersion(flag: String) throws {
    for program in [E2E.pinpadd, E2E.pinpadctl] {
      let run = try runProgram(program, [flag])
      let name = (program as NSString).lastPathComponent
      #expect(run.status == 0, "\(name) \(flag): \(run.stderr)")
      #expect(run.stdout == "\(name) \(pinpaddVersion)\n")
    }
    let daemon = try RunningDaemon()
    #expect(try daemon.connect().hello["version"] as? String == pinpaddVersion)
    #expect(daemon.stop() == 0)
  }

  @Test func anEmptyDeviceListSaysWhy() throws {
    #expect(
      DeviceListCommand.emptyListing("/dev/input", Errno(ENOENT))
        == "no input devices: /dev/input does not exist (no input drivers, or a container without devices)"
    )
    #expect(
      DeviceListCommand.emptyListing("/d", Errno(EACCES)).contains("no permission to read /d"))
    let dir = TempDir()
    #expect(inputDirectoryProblem(dir.path) == nil)
    #expect(inputDirectoryProblem(dir.file("none")) == Errno(ENOENT))
    #expect(DeviceListCommand.lines(configuration: Configuration(), directory: dir.path).isEmpty)
    #expect(
      DeviceListCommand.emptyListing(dir.path, nil)
        == "no input devices: \(dir.path) holds no event nodes")
    // This machine's own /dev/input, through the real binary.
    let run = try runProgram(E2E.pinpadd, ["--list-devices"])
    #expect(run.status == 0)
    if run.stdout.isEmpty {
      let why = DeviceListCommand.emptyListing("/dev/input", inputDirectoryProblem("/dev/input"))
      #expect(run.stderr == "pinpadd: \(why)\n")
    }
  }

  @Test func aMissingConfigFileIsNamedWithoutALineNumber() throws {
    let dir = TempDir()
    let run = try runProgram(E2E.pinpadd, ["--check-config", "--config", dir.file("nope.conf")])
    #expect(run.status == 78)
    #expect(run.stderr.hasPrefix("\(dir.file("nope.conf")): cannot read: "), "\(run.stderr)")
    #expect(!run.stderr.contains(":0:"))
  }

  @Test func aKeyGivenTwiceInASectionIsAnErrorWithFileAndLine() throws {
    let dir = TempDir()
    let path = dir.write("pinpadd.conf", "[Entry]\nLength=4\n# again\nLength=6\n")
    let run = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(run.status == 78)
    #expect(run.stderr == "\(path):4: Length= is already set in [Entry] at line 2\n")
  }

  @Test func aMissingDefaultSocketGroupIsOneWarning() throws {
    let daemon = try RunningDaemon()
    #expect(daemon.stop() == 0)
    let warnings = daemon.log.split(separator: "\n").filter { $0.contains("group pinpadd") }
    if getgrnam("pinpadd") == nil {
      #expect(
        warnings == [
          "socket: group pinpadd does not exist; the socket gets the daemon's own group, and that group may connect"
        ], "\(daemon.log)")
    } else {
      #expect(warnings.isEmpty)
    }
  }

  @Test func theShippedRecordingReplaysAsTheREADMESays() throws {
    let dir = TempDir()
    let recording = Self.root + "/examples/keypad-1234.evemu"
    #expect(FileManager.default.fileExists(atPath: recording))
    let daemon = try RunningDaemon(
      config: "[Socket]\nDeliveryTimeoutSec=5\n", dir: dir,
      extraArguments: ["--input", "replay-fast:" + recording])
    let code = try #require(try daemon.connect().waitFor("code", timeout: 5)).message
    #expect(code.string("code") == "1234")
    #expect(daemon.stop() == 0)
    let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
    #expect(readme.contains("examples/keypad-1234.evemu"))
  }

  /// groff (groff-base, which man-db needs) renders the pages as `man` shows them.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff")))
  func theManPagesShowExamplesWholeAndDocumentHash() throws {
    func render(_ page: String) throws -> String {
      let run = try runProgram("/usr/bin/groff", ["-man", "-Tutf8", "-P-cbou", Self.root + page])
      #expect(run.status == 0, "\(run.stderr)")
      return run.stdout
    }
    let daemon = try render("/man/pinpadd.8")
    for example in [
      #"{"type":"hello","protocol":1,"version":"\#(pinpaddVersion)"}"#,
      #"{"type":"verdict","id":"ID","result":"granted|denied","message":"..."}"#,
      #"{"type":"status"}"#,
    ] {
      #expect(daemon.contains(example), "\(example) is broken in:\n\(daemon)")
    }
    let control = try render("/man/pinpadctl.1")
    // The synopsis as words (groff justifies and breaks its lines).
    let words = control.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      words.contains(
        "pinpadctl hash NAME [--card] [--duress] [--codes CODES] [--key KEYFILE] [--config FILE]"))
    #expect(
      words.contains(
        "serve --codes FILE [--key KEYFILE] [--state-dir DIR] [--keep-days N] [--config FILE]"))
    #expect(
      words.contains(
        "[--from DATE] [--until DATE] [--hours WINDOWS] [--uses N] [--doors NAMES] [--disabled]"))
    #expect(
      words.contains(
        "pinpadctl log [--since TIME] [--until TIME] [--person NAME] [--door NAME] [--json]"
          + " [--keep-days N] [--state-dir DIR]"))
    #expect(words.contains("verdict ID granted|denied [--message TEXT] [--duress]"))
    for section in ["CODES FILE", "ACCESS LOG", "SCALE"] {
      #expect(control.contains("\n\(section)\n"))
    }
    #expect(control.contains("pinpadctl hash alice >> /etc/pinpadd/codes"))
    let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
    let programs = try #require(readme.components(separatedBy: "## Programs").last)
    #expect(programs.prefix(400).contains("`hash`"))
  }
}
