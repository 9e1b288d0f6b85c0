import PinpadCore
import Testing

/// Reloads, keypads and the screen, pad presses, `status`, the two clocks.
@Suite struct SessionScreenTests {
  @Test("start draws the first frame and tells systemd; quit stops")
  func startAndQuit() {
    var s = SessionScript()
    #expect(s.send(.start) == "notify(READY=1\nSTATUS=Waiting for keys)")
    #expect(s.frames.count == 1)
    #expect(s.logged("pinpadd 9.9.9 ready"))
    #expect(s.run("end").isEmpty && s.frames.count == 1, "an unchanged frame was drawn again")
    s.send(.screenLost)
    s.run("end")
    #expect(s.frames.count == 2, "a lost screen is drawn again")
    #expect(s.run("quit") == "stop")
    #expect(s.logged("stopping on request"))
  }

  @Test("a reload keeps an entry that still fits, clears one that does not")
  func reloadKeepsAnEntry() {
    var s = SessionScript()
    s.run("1 2 3")
    var loaded = s.session.config
    loaded.display.prompt = "Code please"
    loaded.socket.verdictTimeout = .seconds(99)
    #expect(s.send(.reload(loaded)) == "reconfigure")
    #expect(s.logged("reload: [Socket] changes take effect at the next start"))
    #expect(s.logged("configuration reloaded"))
    #expect(s.session.config.socket.verdictTimeout == .seconds(10), "[Socket] changed at once")
    s.run("end")
    #expect(s.lastFrame?.prompt == "Code please")
    #expect(s.lastFrame?.filled == 3)
    loaded.entry.maxLength = 2
    loaded.entry.minLength = 2
    #expect(s.send(.reload(loaded)) == "reconfigure entry(default,cleared,0)")
    loaded.display.output = .none
    s.send(.reload(loaded))
    #expect(s.logged("reload: [Display] Output, Device, Font"))
  }

  @Test("the screen shows the keypad used last; a verdict brings its keypad back")
  func twoKeypads() {
    var s = SessionScript()
    s.run("clients=1 keypad=door 1 2 3 4 ENTER keypad=lobby 5 6 end")
    #expect(s.session.activeKeypad == "lobby")
    #expect(s.lastFrame?.phase == .entering && s.lastFrame?.filled == 2)
    s.run("granted:ab-1 end")
    #expect(s.session.activeKeypad == "door")
    #expect(s.lastFrame?.phase == .granted(message: nil))
    // Lobby's entry went on meanwhile; its next key brings it back.
    s.run("keypad=lobby 7 end")
    #expect(s.lastFrame?.phase == .entering && s.lastFrame?.filled == 3)
    #expect(s.run("keypad=door 9").hasPrefix("entry(door,started,1)"))
  }

  @Test("a tap types its key into the screen's keypad; a slide off types nothing")
  func padPresses() {
    var s = SessionScript({ $0.display.onScreenKeypad = true })
    #expect(s.run("pad:1 pad:2") == "entry(default,started,1) entry(default,changed,2)")
    s.run("pad+:3 end")
    #expect(s.lastFrame?.keypad?.pressed == .digit(3))
    #expect(s.run("pad~:- pad-:-") == "")
    s.run("pad+:4 lost end")
    #expect(s.lastFrame?.keypad?.pressed == nil)
    #expect(s.run("pad-:4") == "", "a pointer that went away pressed its key")
    #expect(s.run("pad:bs") == "entry(default,deleted,1)")
    // Taps go to the keypad last used.
    s.run("keypad=door 5")
    #expect(s.run("pad:6") == "entry(door,changed,2)")
  }

  @Test("without OnScreenKeypad, pointer events type nothing")
  func padOff() {
    var s = SessionScript()
    #expect(s.run("pad:1 pad:ok") == "")
  }

  @Test("scrambled: a new digit order for every entry")
  func scrambledLayouts() {
    var s = SessionScript(
      {
        $0.display.onScreenKeypad = true
        $0.display.keypadLayout = .scrambled
      }, random: SeededRandom(state: 7))
    s.run("1 end")
    let first = s.lastFrame?.keypad?.digitCells
    #expect(Set(first ?? []) == Set(0...9))
    s.run("ESC 1 end")
    let second = s.lastFrame?.keypad?.digitCells
    #expect(first != second)
  }

  @Test("status: keypads by name with state, length, failures; never a digit")
  func statusAnswer() throws {
    var s = SessionScript()
    s.run("clients=1 keypad=door 1 1 1 1 ENTER denied 2 2 2 2 ENTER denied 3 3 3 3 ENTER denied")
    s.run("keypad=lobby 9 8 7 +1.5 status")
    let reply = try #require(s.replies.last)
    #expect(reply.client == 1)
    guard case .status(let report) = reply.message else {
      Issue.record("not a status answer: \(reply.message)")
      return
    }
    #expect(report.version == "9.9.9")
    #expect(report.pending == 0)
    #expect(report.clients == 1)
    #expect(report.inputs == ["auto"])
    #expect(report.lockoutsSaved)
    #expect(report.doors == nil)
    #expect(report.keypads.map(\.name) == ["door", "lobby"])
    #expect(report.keypads[0].phase.name == "locked")
    #expect(report.keypads[0].failures == nil, "a 0 while locked would mislead")
    #expect(report.keypads[0].lockedSeconds == 29)
    #expect(report.keypads[1].phase == .entering)
    #expect(report.keypads[1].length == 3)
    #expect(report.keypads[1].failures == 0)
    #expect(report.keypads[1].lockedSeconds == 0)
    // The line as it goes out: a locked keypad has no failures member, and no digit.
    #expect(
      reply.message.line
        == #"{"type":"status","version":"9.9.9","keypads":["#
        + #"{"name":"door","state":"locked","length":0,"locked_seconds":29},"#
        + #"{"name":"lobby","state":"entering","length":3,"failures":0,"locked_seconds":0}],"#
        + #""inputs":["auto"],"clients":1,"queued_bytes":0,"lockouts_saved":true,"pending":0}"#
        + "\n")
  }

  @Test("keys stamped ahead push the entry time; socket timeouts stay on the clock")
  func twoClocks() {
    var s = SessionScript({
      $0.entry.interKeyTimeout = .seconds(1)
      $0.socket.verdictTimeout = .seconds(10)
    })
    s.run("clients=1 keypad=door 1 2 3 4 ENTER keypad=lobby stamp=20 5")
    // The code's verdict timeout runs 10 s on the clock, however far the entry ran.
    #expect(s.session.attempts.attempts.first?.deadline == s.now + .seconds(10))
    // The new entry times out 1 s after its stamp: 1 s from now on the clock.
    #expect(s.session.nextWakeup == s.now + .seconds(1))
    #expect(s.run("wait") == "entry(lobby,timeout,0)")
    #expect(s.session.attempts.attempts.count == 1, "the verdict timed out with the replay")
    #expect(s.run("granted").hasPrefix("verdict(ab-1,granted)"))
  }

  @Test("devices coming and going are broadcast; dropped events wipe the entry")
  func devicesAndDrops() {
    var s = SessionScript()
    #expect(
      s.send(.deviceAdded(keypad: "door", path: "/dev/input/event3"))
        == "keypad(door,added,/dev/input/event3,keypad)")
    #expect(
      s.send(.deviceRemoved(keypad: "door", path: "/dev/input/event3"))
        == "keypad(door,removed,/dev/input/event3,keypad)")
    #expect(
      s.run("1 2 dropped")
        == "entry(default,started,1) entry(default,changed,2) entry(default,cleared,0)")
    #expect(s.logged("events lost in the kernel (SYN_DROPPED), entry wiped"))
  }
}
