import PinpadCore
import Testing

/// Lockouts, and when the Session asks for the lockout file to be written.
@Suite struct SessionLockoutTests {
  @Test("MaxFailures denials lock the keypad; the lock is broadcast and saved")
  func denialsLock() {
    var s = SessionScript()
    s.run("clients=1 1 1 1 1 ENTER denied 2 2 2 2 ENTER denied 3 3 3 3 ENTER")
    let trace = s.run("denied")
    #expect(trace.contains("lockout(default,30)"))
    #expect(trace.contains("persist(default=0/1/locked)"))
    #expect(s.logged("keypad default: locked out for 30 s after repeated denials"))
    s.run("end")
    #expect(s.lastFrame?.phase == .locked(secondsLeft: 30))
    // Digits are refused while locked; the countdown ticks each second.
    #expect(s.run("4") == "entry(default,rejected,0)")
    #expect(s.session.nextWakeup == s.now + .seconds(1))
    s.run("+29.5 tick end")
    #expect(s.lastFrame?.phase == .locked(secondsLeft: 1))
    s.run("+0.5 tick 4 end")
    #expect(s.lastFrame?.phase == .entering)
  }

  @Test("the file is written only when what it holds changes")
  func writtenOnlyOnChange() {
    var s = SessionScript()
    // A grant with nothing to keep: nothing to write.
    #expect(!s.run("clients=1 1 2 3 4 ENTER granted").contains("persist"))
    #expect(s.run("1 2 3 4 ENTER denied").contains("persist(default=1/0)"))
    #expect(s.run("1 2 3 4 ENTER granted").contains("persist(default=0/0)"))
    #expect(!s.run("1 2 3 4 ENTER granted").contains("persist"))
    // A verdict timeout changes no lockout.
    #expect(!s.run("1 2 3 4 ENTER +10 tick").contains("persist"))
    #expect(s.persisted.count == 2)
  }

  @Test("a failed save is logged once, retried every 5 s, and status says so")
  func failedSaveRetried() {
    var s = SessionScript()
    s.saveFailure = "disk full"
    s.run("clients=1 1 2 3 4 ENTER denied")
    #expect(s.logs.filter { $0.1.contains("cannot save lockout state: disk full") }.count == 1)
    #expect(s.session.lockoutSaveError == "disk full")
    s.run("status")
    #expect(s.lastStatus?.lockoutsSaved == false)
    #expect(s.run("+4.999 tick") == "")
    #expect(s.session.nextWakeup == s.now + .milliseconds(1))
    #expect(s.run("+0.001 tick") == "persist(default=1/0)")
    #expect(s.logs.filter { $0.1.contains("cannot save lockout state") }.count == 1)
    s.saveFailure = nil
    #expect(s.session.nextWakeup == s.now + .seconds(5))
    #expect(s.run("wait") == "persist(default=1/0)")
    #expect(s.logged("lockout state saved again"))
    #expect(s.session.nextWakeup == nil)
    s.run("status")
    #expect(s.lastStatus?.lockoutsSaved == true)
  }

  @Test("--state-dir none: lockouts count but are never written")
  func notPersistent() {
    var s = SessionScript(persistent: false)
    let trace = s.run(
      "clients=1 1 1 1 1 ENTER denied 2 2 2 2 ENTER denied 3 3 3 3 ENTER denied status")
    #expect(trace.contains("lockout(default,30)"))
    #expect(!trace.contains("persist"))
    #expect(s.lastStatus?.lockoutsSaved == false)
  }

  @Test("a saved lock holds after a restart; \"*\" holds every keypad")
  func savedLocksHold() {
    let until = SessionScript.start + .seconds(20)
    var s = SessionScript(
      saved: SavedLockouts(states: [
        "door": LockoutState(level: 1, lockedUntil: until),
        "*": LockoutState(level: 1, lockedUntil: SessionScript.start + .seconds(10)),
      ]))
    s.run("keypad=door 1 end")
    #expect(s.lastFrame?.phase == .locked(secondsLeft: 20))
    s.run("keypad=lobby 1 end")
    #expect(s.lastFrame?.phase == .locked(secondsLeft: 10))
    s.run("+10 tick keypad=lobby 1 end")
    #expect(s.lastFrame?.phase == .entering)
  }

  @Test("a guessed lock from a corrupt line is dropped from the file once it ends")
  func guessedLockForgotten() {
    let saved = SavedLockouts(
      states: ["garbled": LockoutState(level: 1, lockedUntil: SessionScript.start + .seconds(30))],
      guessed: ["garbled"], fileDiffers: true)
    var s = SessionScript(saved: saved)
    // The file held a corrupt line: the first save rewrites it even with nothing new.
    #expect(
      s.run("clients=1 1 2 3 4 ENTER granted").contains("persist(default=0/0,garbled=0/1/locked)"))
    #expect(s.run("+30 1 2 3 4 ENTER denied").contains("persist(default=1/0)"))
  }
}
