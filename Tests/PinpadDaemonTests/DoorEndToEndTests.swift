import Foundation
import Glibc
import PinpadTestSupport
import Testing

/// Doors (pinpadd.conf(5), [Door NAME]) on the host, where no GPIO chip exists: a line
/// that cannot be had fails the start with 69 and one line naming chip and line, before
/// the socket exists; `--check-config` checks names without opening any line. (The lines
/// themselves are driven on a real kernel driver in tests/system/cases/door-gpio.)
@Suite struct DoorEndToEndTests {
  @Test(arguments: [
    ("Relay=/dev/gpiochip-none:3", "Relay=/dev/gpiochip-none:3"),
    ("Relay=no-such-label:door-lock", "Relay=no-such-label:door-lock"),
  ])
  func aLineThatCannotBeHadExits69WithOneLineNamingIt(relay: String, named: String) throws {
    let dir = TempDir()
    let config = dir.write("c.conf", "[Door main]\n\(relay)\n")
    let run = try runProgram(
      E2E.pinpadd,
      [
        "--config", config, "--input", "replay-fast:" + dir.write("r.txt", ""),
        "--display", "none", "--socket", dir.file("s.sock"), "--state-dir", dir.file("state"),
      ])
    #expect(run.status == 69, "\(run.stderr)")
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(run.stderr)")
    #expect(run.stderr.contains("door main") && run.stderr.contains(named), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.file("s.sock")))
  }

  @Test func checkConfigValidatesDoorsWithoutOpeningTheirLines() throws {
    let dir = TempDir()
    let good = dir.write(
      "good.conf", "[Door main]\nRelay=/dev/gpiochip-none:3\nContact=somechip:reed\nOpenSec=5\n")
    let run = try runProgram(E2E.pinpadd, ["--check-config", "--config", good])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("[Door main]\nKeypads=\nRelay=/dev/gpiochip-none:3\n"))
    #expect(run.stdout.contains("Contact=somechip:reed\n"))
    let bad = dir.write("bad.conf", "[Door main]\nRelay=chip:1\nKeypads=nowhere\n")
    let refused = try runProgram(E2E.pinpadd, ["--check-config", "--config", bad])
    #expect(refused.status == 78)
    #expect(refused.stderr.hasPrefix("\(bad):3: "), "\(refused.stderr)")
  }

  @Test func pinpadctlOpenNeedsOneDoorName() throws {
    #expect(try runProgram(E2E.pinpadctl, ["open"]).status == 64)
    #expect(try runProgram(E2E.pinpadctl, ["open", "a", "b"]).status == 64)
    #expect(try runProgram(E2E.pinpadctl, ["open", "bad/name"]).status == 64)
  }
}

/// `open` through the real socket of a daemon with no `[Door]`: an error reply, no crash,
/// no `door` message; the connection keeps working.
@Suite struct DoorSocketEndToEndTests {
  @Test func anOpenForNoSuchDoorGetsAnErrorAndNoDoorMessage() throws {
    let daemon = try RunningDaemon()
    let client = try daemon.connect()
    client.send("{\"type\":\"open\",\"door\":\"front\"}\n")
    let error = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(error.string("reason") == "no door named front")
    client.send("{\"type\":\"open\"}\n")
    let missing = try #require(try client.waitFor("error", timeout: 3)).message
    #expect(missing.string("reason")?.contains("door") == true)
    let status = try #require(try client.status())
    #expect(status.int("clients") == 1)
    #expect(try client.waitFor("door", timeout: 0.3) == nil)
    #expect(daemon.stop() == 0)
  }
}

@Suite struct DoorReadmeTests {
  @Test("the README's door example passes --check-config as pasted (with its [Keypad door])")
  func readmeExample() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
    let section = try #require(
      readme.components(separatedBy: "## A door: relay, contact, exit button").dropFirst().first)
    let block = section.components(separatedBy: "\n").drop { !$0.hasPrefix("    [Door") }
      .prefix { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
    #expect(block.count == 10)
    let dir = TempDir()
    let path = dir.write(
      "door.conf", "[Keypad door]\nMatch=*Keypad*\n" + block.joined(separator: "\n") + "\n")
    let result = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("[Door front]\nKeypads=door\nRelay=gpiochip0:GPIO17\n"))
    #expect(result.stdout.contains("ExitButtonActiveLow=yes\n"))
  }
}

@Suite struct DoorReloadEndToEndTests {
  @Test func aReloadThatChangesDoorsSaysTheyWaitForARestartAndKeepsRunning() throws {
    let daemon = try RunningDaemon(
      config: "[Entry]\nLength=4\n", recording: E2E.recording("4321", firstGap: 30))
    daemon.dir.write("pinpadd.conf", "[Entry]\nLength=4\n[Door main]\nRelay=/dev/gpiochip-none:1\n")
    daemon.signal(SIGHUP)
    #expect(
      E2E.waitUntil(timeout: 5) { daemon.log.contains("configuration reloaded") }, "\(daemon.log)")
    #expect(
      E2E.waitUntil(timeout: 2) {
        daemon.log.contains("reload: [Door] changes take effect at the next start")
      })
    #expect(daemon.isAnswering())
    #expect(daemon.stop() == 0)
  }
}
