import PinpadCore
import Testing

/// Types a code and gets it denied `times` times.
private func deny(_ script: inout EntryScript, times: Int = 1) -> String {
  var out: [String] = []
  for _ in 0..<times { out.append(script.run("1 2 3 4 ENTER denied")) }
  return out.joined(separator: " ")
}

@Suite("Entry checking, verdicts and lockout")
struct EntryVerdictTests {
  // MARK: Checking

  @Test("digits while checking are busy and change nothing", arguments: ["KP5", "5", "KEY_0"])
  func busyWhileChecking(_ digit: String) {
    var script = EntryScript()
    script.run("1 2 3 4 ENTER")
    #expect(script.run(digit) == "!busy")
    #expect(script.machine.length == 0)
    #expect(script.machine.phase == .checking)
  }

  @Test(
    "other keys while checking do nothing",
    arguments: ["ENTER", "BACKSPACE", "ESC", "KPDOT", "KEY_A", "NUMLOCK"])
  func otherKeysWhileChecking(_ key: String) {
    var script = EntryScript()
    script.run("1 2 3 4 ENTER")
    #expect(script.run(key) == "")
    #expect(script.machine.phase == .checking)
  }

  @Test(
    "a verdict ends checking",
    arguments: [
      ("granted", 0), ("denied", 1), ("noresponse", 0), ("undelivered", 0),
    ])
  func verdictEndsChecking(_ verdict: String, _ failures: Int) {
    var script = EntryScript()
    script.run("1 2 3 4 ENTER")
    #expect(script.run(verdict) == "screen")
    #expect(script.machine.phase == .idle)
    #expect(script.machine.lockoutState.failures == failures)
    #expect(script.machine.attemptsLeft == 3 - failures)
    #expect(script.run("5") == "started:1 screen")
  }

  @Test(
    "a verdict when nothing is being checked is ignored",
    arguments: ["", "1 2"], ["granted", "denied", "noresponse", "undelivered"])
  func strayVerdict(_ given: String, _ verdict: String) {
    var script = EntryScript()
    script.run(given)
    let phase = script.machine.phase
    #expect(script.run(verdict) == "")
    #expect(script.machine.phase == phase)
    #expect(script.machine.lockoutState == LockoutState())
  }

  @Test("no response and undelivered neither count as failures nor reset them")
  func neitherCounts() {
    var script = EntryScript()
    _ = deny(&script, times: 2)
    script.run("1 2 3 4 ENTER noresponse 1 2 3 4 ENTER undelivered")
    #expect(script.machine.lockoutState.failures == 2)
    #expect(script.machine.attemptsLeft == 1)
  }

  @Test("a grant resets the failure count")
  func grantResetsFailures() {
    var script = EntryScript()
    _ = deny(&script, times: 2)
    script.run("1 2 3 4 ENTER granted")
    #expect(script.machine.lockoutState.failures == 0)
    #expect(!deny(&script, times: 2).contains("lockout"))
    #expect(script.machine.attemptsLeft == 1)
  }

  // MARK: Lockout

  @Test("MaxFailures consecutive denials lock the keypad for LockoutSec")
  func lockoutAfterMaxFailures() {
    var script = EntryScript()
    _ = deny(&script, times: 2)
    #expect(
      script.run("1 2 3 4 ENTER denied")
        == "started:1 screen changed:2 screen changed:3 screen changed:4 screen submit:1234 screen lockout:30 screen"
    )
    #expect(script.machine.phase == .locked(until: script.now + .seconds(30)))
    #expect(
      script.machine.lockoutState
        == LockoutState(failures: 0, level: 1, lockedUntil: script.now + .seconds(30)))
    #expect(script.machine.nextDeadline == script.now + .seconds(30))
  }

  @Test("digits while locked are refused; other keys do nothing")
  func keysWhileLocked() {
    var script = EntryScript()
    _ = deny(&script, times: 3)
    #expect(script.run("KP5") == "!locked rejected:0")
    #expect(script.run("ENTER ESC KEY_A") == "")
    #expect(script.machine.length == 0)
  }

  @Test("the lock ends exactly at its deadline and the keypad takes digits again")
  func lockEnds() {
    var script = EntryScript()
    script.run("@0")
    _ = deny(&script, times: 3)
    #expect(script.run("@29.999999999 tick") == "")
    #expect(script.run("@30 tick") == "screen")
    #expect(script.machine.phase == .idle)
    #expect(script.machine.lockoutState == LockoutState(failures: 0, level: 1, lockedUntil: nil))
    #expect(script.run("5") == "started:1 screen")
  }

  @Test("each further lockout doubles, up to LockoutMaxSec")
  func lockoutDoubles() {
    var script = EntryScript(lockout: .testing(lockoutMax: .seconds(200)))
    var seconds: [Int] = []
    for _ in 0..<5 {
      let out = deny(&script, times: 3)
      if let last = out.split(separator: " ").last(where: { $0.hasPrefix("lockout:") }) {
        seconds.append(Int(last.dropFirst("lockout:".count))!)
      }
      script.run("wait")
    }
    #expect(seconds == [30, 60, 120, 200, 200])
    #expect(script.machine.lockoutState.level == 5)
  }

  @Test("a grant after a lockout resets the doubling")
  func grantResetsLevel() {
    var script = EntryScript()
    _ = deny(&script, times: 3)
    script.run("wait 1 2 3 4 ENTER granted")
    #expect(script.machine.lockoutState == LockoutState())
    #expect(deny(&script, times: 3).hasSuffix("lockout:30 screen"))
  }

  @Test("a fractional LockoutSec is announced rounded up")
  func fractionalLockout() {
    var script = EntryScript(lockout: .testing(maxFailures: 1, lockout: .milliseconds(2500)))
    #expect(deny(&script).hasSuffix("lockout:3 screen"))
    #expect(script.machine.nextDeadline == script.now + .milliseconds(2500))
  }

  @Test("MaxFailures=1 locks at the first denial")
  func maxFailuresOne() {
    var script = EntryScript(lockout: .testing(maxFailures: 1))
    #expect(script.machine.attemptsLeft == 1)
    #expect(deny(&script).hasSuffix("lockout:30 screen"))
  }

  // MARK: Restore

  @Test("a restored lock in the future starts locked and ends on time")
  func restoreLocked() {
    let until = EntryScript.start + .seconds(40)
    var script = EntryScript(state: LockoutState(failures: 0, level: 2, lockedUntil: until))
    #expect(script.machine.phase == .locked(until: until))
    #expect(script.machine.nextDeadline == until)
    #expect(script.run("@0 KP1") == "!locked rejected:0")
    #expect(script.run("@40 tick") == "screen")
    #expect(script.machine.phase == .idle)
    #expect(deny(&script, times: 3).hasSuffix("lockout:120 screen"))
  }

  @Test("a restored lock already over ends at the first input")
  func restoreExpiredLock() {
    let until: Instant = EntryScript.start - .seconds(1)
    var script = EntryScript(state: LockoutState(failures: 0, level: 1, lockedUntil: until))
    #expect(script.machine.phase == .locked(until: until))
    #expect(script.run("@0 KP1") == "started:1 screen")
    #expect(script.machine.lockoutState.lockedUntil == nil)
  }

  @Test("restored failures count towards the next lockout")
  func restoreFailures() {
    var script = EntryScript(state: LockoutState(failures: 2, level: 0))
    #expect(script.machine.attemptsLeft == 1)
    #expect(deny(&script).hasSuffix("lockout:30 screen"))
  }

  @Test("a restored lock never lasts longer than LockoutMaxSec from now")
  func restoreClampsLock() {
    let until = EntryScript.start + .seconds(1_000_000)
    var script = EntryScript(state: LockoutState(failures: 0, level: 9, lockedUntil: until))
    script.run("@0 tick")
    #expect(script.machine.lockoutState.lockedUntil == script.at("900"))
    #expect(script.run("@900 tick") == "screen")
  }

  // MARK: SYN_DROPPED

  @Test("SYN_DROPPED wipes a partial entry")
  func droppedWipes() {
    var script = EntryScript()
    script.run("1 2 3")
    #expect(script.run("dropped") == "cleared:0 screen")
    #expect(script.machine.length == 0)
    #expect(script.machine.phase == .idle)
    #expect(script.machine.nextDeadline == nil)
  }

  @Test(
    "SYN_DROPPED does nothing while idle, checking or locked",
    arguments: [
      "", "1 2 3 4 ENTER", "1 2 3 4 ENTER denied 1 2 3 4 ENTER denied 1 2 3 4 ENTER denied",
    ])
  func droppedElsewhere(_ given: String) {
    var script = EntryScript()
    script.run(given)
    let phase = script.machine.phase
    #expect(script.run("dropped") == "")
    #expect(script.machine.phase == phase)
  }
}
