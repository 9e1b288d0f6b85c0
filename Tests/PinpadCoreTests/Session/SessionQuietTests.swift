import PinpadCore
import Testing

/// What the session does not build when nobody would look: log lines below the level
/// logged, screen models without a display. The protocol lines stay the same.
@Suite struct SessionQuietTests {
  static func script(logLevel: LogLevel) -> SessionScript {
    var s = SessionScript()
    s.session = Session(
      settings: .init(version: "9.9.9", logLevel: logLevel), config: s.session.config,
      idRandom: SeededRandom(state: 7))
    return s
  }

  @Test("below the log level no log effect comes; at or above it they do")
  func logLevelGatesLogEffects() {
    var loud = Self.script(logLevel: .debug)
    var quiet = Self.script(logLevel: .warning)
    let script = "1 2 3 4 ENTER"
    let trace = loud.run(script)
    #expect(quiet.run(script) == trace, "the protocol lines differ with the log level")
    #expect(loud.logged("digit key pressed"), "debug key lines are there at debug")
    #expect(loud.logged("submitted as attempt"))
    #expect(!quiet.logs.isEmpty, "no client: the warning still comes")
    #expect(quiet.logs.allSatisfy { $0.0 >= .warning }, "\(quiet.logs)")
    #expect(quiet.logged("no controller connected"))
    for level in LogLevel.allCases {
      var s = Self.script(logLevel: level)
      s.run("clients=1 1 2 ENTER")
      #expect(s.logs.allSatisfy { $0.0 >= level }, "\(level): \(s.logs)")
    }
  }

  @Test("without a display no screen model is built; the entry lines are unchanged")
  func noDisplayNoFrames() {
    var drawn = SessionScript()
    var blind = SessionScript()
    blind.session.drawsScreen = false
    #expect(blind.send(.start) == drawn.send(.start))
    let script = "clients=1 1 end 2 end 3 end 4 end ENTER end granted end"
    #expect(blind.run(script) == drawn.run(script))
    #expect(drawn.frames.count > 3, "the test drew nothing to compare")
    #expect(blind.frames.isEmpty)
  }

  @Test("without a service manager no STATUS= line is asked for; READY=1 and the rest stay")
  func noServiceManagerNoStatus() {
    var managed = SessionScript()
    var alone = SessionScript()
    alone.session.reportsStatus = false
    #expect(managed.send(.start) == alone.send(.start), "READY=1 is asked for either way")
    let script = "clients=1 1 2 3 4 ENTER granted 5 6 7 8 ENTER +31 tick"
    let withStatus = managed.run(script)
    let without = alone.run(script)
    #expect(withStatus.contains("notify(STATUS=Checking attempt"), "\(withStatus)")
    #expect(withStatus.contains("notify(STATUS=Waiting for keys)"), "\(withStatus)")
    #expect(!without.contains("notify("), "\(without)")
    // The trace's items less notify(...) ones (their text has spaces of its own).
    let drop = { (trace: String) -> [Substring] in
      var kept: [Substring] = []
      var inNotify = false
      for item in trace.split(separator: " ") {
        if item.hasPrefix("notify(") {
          inNotify = !item.hasSuffix(")")
        } else if inNotify {
          inNotify = !item.hasSuffix(")")
        } else {
          kept.append(item)
        }
      }
      return kept
    }
    #expect(drop(without) == drop(withStatus))
    #expect(drop(withStatus).contains("verdict(ab-1,granted)"), "\(withStatus)")
  }

  @Test("each keypad's entry messages name it and count its own digits")
  func entryMessagesPerKeypad() {
    var s = SessionScript()
    s.run("keypad=door 1:1 keypad=gate 1:1 keypad=door 1:1")
    #expect(
      s.broadcasts == [
        .entry(keypad: "door", event: .started, length: 1),
        .entry(keypad: "gate", event: .started, length: 1),
        .entry(keypad: "door", event: .changed, length: 2),
      ])
    #expect(
      s.broadcasts.map(\.line) == [
        DaemonMessage.entry(keypad: "door", event: .started, length: 1),
        DaemonMessage.entry(keypad: "gate", event: .started, length: 1),
        DaemonMessage.entry(keypad: "door", event: .changed, length: 2),
      ])
  }

  @Test("a new keypad that sorts before the last one used moves it; each keeps its entry")
  func keypadInsertedBeforeTheLastUsed() {
    var s = SessionScript()
    s.run(
      "keypad=door 1:1 keypad=alarm 1:1 keypad=door 1:1 keypad=zone 1:1 keypad=alarm 1:1"
        + " keypad=door 1:1")
    #expect(s.session.keypads.map(\.name) == ["alarm", "door", "zone"])
    #expect(
      s.broadcasts == [
        .entry(keypad: "door", event: .started, length: 1),
        .entry(keypad: "alarm", event: .started, length: 1),
        .entry(keypad: "door", event: .changed, length: 2),
        .entry(keypad: "zone", event: .started, length: 1),
        .entry(keypad: "alarm", event: .changed, length: 2),
        .entry(keypad: "door", event: .changed, length: 3),
      ])
  }
}
