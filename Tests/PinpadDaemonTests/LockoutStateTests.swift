import Foundation
import Glibc
import PinpadCore
import Testing

/// Lockouts (pinpadd.conf(5), [Lockout]) and their state file (issue 15's hostile state
/// files among them) on the real daemon in this process (`DaemonHarness`): the file is
/// read at the start by the real `LockoutFile.load` on the manual clock, so a lock's end
/// is an exact instant.
@Suite struct LockoutStateTests {
  @Test func deniedMaxFailuresTimesLocksOutAndTheLockoutSurvivesARestart() throws {
    let config = "[Lockout]\nMaxFailures=2\nLockoutSec=30\n"
    var harness = try DaemonHarness(config: config)
    let dir = harness.dir
    let client = try harness.connect()
    for expected in ["1111", "2222"] {
      harness.type(expected + "\n")
      let code = try #require(try client.waitFor("code", timeout: 5)).message
      #expect(code.string("code") == expected)
      client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
      #expect(try client.waitFor("verdict", timeout: 3) != nil)
      harness.advance(0.4)
    }
    let lockout = try #require(try client.waitFor("lockout", timeout: 3)).message
    #expect(lockout.string("keypad") == "default")
    #expect(lockout.int("seconds") == 30)
    // While locked, status gives no failure count (it starts again at 0 with the lockout).
    let locked = try #require(try client.keypadStatus())
    #expect(locked.string("state") == "locked")
    #expect(locked["failures"] == nil, "\(locked)")
    #expect(harness.stop() == 0)
    let stateFiles = try FileManager.default.contentsOfDirectory(atPath: harness.stateDir)
    #expect(!stateFiles.isEmpty)

    // Same state folder, a new daemon: the keypad is still locked and ignores digits.
    // The file keeps wall-clock time, so the lock left is 30 s less the real time the
    // restart took: more than 27 s, at most 30.
    harness = try DaemonHarness(config: config, dir: dir)
    let again = try harness.connect()
    harness.type("3333\n")
    #expect(try again.waitFor("code", timeout: 0.05) == nil)
    let pad = try #require(try again.keypadStatus())
    #expect(pad.string("state") == "locked")
    #expect((28...30).contains(pad.int("locked_seconds") ?? 0), "\(pad)")
    // 27 s after the restart (0.9 of the lock) still locked; at 30 s the lock is over.
    harness.advance(27 - 0.5)
    #expect(try again.keypadStatus()?.string("state") == "locked")
    harness.type("4444\n")
    #expect(try again.waitFor("code", timeout: 0.05) == nil)
    harness.advance(30 - 27.5)
    let open = try #require(try again.keypadStatus())
    #expect(open.string("state") == "idle", "\(open)")
    #expect(open.int("locked_seconds") == 0)
    harness.type("5555\n")
    #expect(try again.waitFor("code", timeout: 3)?.message.string("code") == "5555")
    #expect(harness.stop() == 0)
  }

  // MARK: Issue 15.7: numbers at the edges never trap

  @Test func aLockoutUntilCenturiesAheadStartsLockedForAtMostLockoutMaxSec() throws {
    let harness = try DaemonHarness(
      config: "[Lockout]\nLockoutMaxSec=120\n",
      lockoutFile: "default 0 1 99999999999999\nother 9223372036854775807 0 0\n")
    let client = try harness.connect()
    // The first key makes the keypad (and is refused): locked for exactly LockoutMaxSec.
    harness.press(.mainRow(1))
    let keypad = try #require(try client.keypadStatus())
    #expect(keypad.string("state") == "locked")
    #expect(keypad.int("locked_seconds") == 120, "\(keypad)")
    harness.advance(108)
    #expect(try client.keypadStatus()?.string("state") == "locked")
    harness.advance(12)
    #expect(try client.keypadStatus()?.string("state") == "idle")
    #expect(harness.stop() == 0)
  }

  @Test func failuresAtInt64MaxThenADenialLocksInsteadOfCrashing() throws {
    let harness = try DaemonHarness(lockoutFile: "default 9223372036854775807 0 0\n")
    let client = try harness.connect()
    harness.type("1234\n")
    let code = try #require(try client.waitFor("code", timeout: 10)).message
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    let lockout = try #require(try client.waitFor("lockout", timeout: 5)).message
    // The first lockout: LockoutSec, not a level run past Int64.
    #expect(lockout.int("seconds") == 30)
    #expect(try client.status() != nil)
    #expect(harness.stop() == 0)
  }

  @Test func aCorruptStateLineIsNotKeptAsAKeypadOnceItsLockEnds() throws {
    let harness = try DaemonHarness(
      config: "[Lockout]\nLockoutSec=1\n", lockoutFile: "ghost x 1 0\n")
    #expect(harness.log.contains("line 1 is not NAME FAILURES LEVEL UNTIL"))
    let client = try harness.connect()
    let start = harness.now
    // A save at 0.9 s, while ghost's conservative lock (1 s from the start) lasts, keeps
    // its line.
    harness.type("1234\n")
    var code = try #require(try client.waitFor("code", timeout: 10)).message
    harness.advance(to: start + .milliseconds(900))
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    #expect(try client.waitFor("verdict", timeout: 5) != nil)
    var saved = harness.dir.read("state/lockout")
    #expect(saved.contains("default 1 0 0"), "\(saved)")
    #expect(saved.contains("ghost 0 1 "), "\(saved)")
    // A save at 1 s, as the lock ends, drops it.
    harness.type("1234\n", gap: 0.02)
    code = try #require(try client.waitFor("code", timeout: 10)).message
    harness.advance(to: start + .seconds(1))
    #expect(harness.now == start + .seconds(1))
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    #expect(try client.waitFor("verdict", timeout: 5) != nil)
    saved = harness.dir.read("state/lockout")
    #expect(saved.contains("default 2 0 0"), "\(saved)")
    #expect(!saved.contains("ghost"), "\(saved)")
    #expect(harness.stop() == 0)
  }

  // MARK: Issue 15.9: a FIFO in place of a file

  @Test func aFIFOAsTheStateFileLocksConservativelyAndIsReplacedBySaving() throws {
    let harness = try DaemonHarness(config: "[Lockout]\nLockoutSec=1\n") { dir in
      #expect(mkfifo(dir.file("state/lockout"), 0o600) == 0)
      #expect(mkfifo(dir.file("state/lockout.tmp"), 0o600) == 0)
    }
    #expect(harness.log.contains("not a regular file but a FIFO"), "\(harness.log)")
    let client = try harness.connect()
    // Every keypad starts locked for LockoutSec: the first key is refused.
    harness.press(.mainRow(1))
    let keypad = try #require(try client.keypadStatus())
    #expect(keypad.string("state") == "locked", "\(keypad)")
    #expect(keypad.int("locked_seconds") == 1)
    harness.advance(0.9)
    #expect(try client.keypadStatus()?.string("state") == "locked")
    harness.advance(0.1)
    #expect(try client.keypadStatus()?.string("state") == "idle")
    harness.type("1234\n")
    let code = try #require(try client.waitFor("code", timeout: 10)).message
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "denied"])
    #expect(try client.waitFor("verdict", timeout: 5) != nil)
    // Never read while it may still be the FIFO: that would block the test.
    let saved = harness.dir.file("state/lockout")
    #expect(isRegularFile(saved))
    #expect(isRegularFile(saved) && harness.dir.read("state/lockout").contains("default 1 "))
    #expect(harness.stop() == 0)
  }
}
