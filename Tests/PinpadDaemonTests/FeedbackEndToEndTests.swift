import Foundation
import Glibc
import PinpadCore
import PinpadInput
import PinpadInputTestSupport
import PinpadSystem
import Testing

@testable import PinpadDaemon

/// The keypad's LEDs and beeper (pinpadd.conf(5), Feedback=) through the real daemon
/// with a manual clock and a simulated device that records what is written to it. (On a
/// real kernel: tests/system/cases/feedback.sh.)
@Suite struct FeedbackEndToEndTests {
  static let ledType: UInt16 = 0x11, sndType: UInt16 = 0x12
  static let numLock: UInt16 = 0, capsLock: UInt16 = 1, tone: UInt16 = 2

  /// A simulated keypad with NumLock on and CapsLock off, and a SND_TONE beeper; its
  /// source keeps what is written to it.
  static func pad() -> (EvdevDevice, RecordPipeSource) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    // The write end is not needed: owned here, so it is closed once, now.
    var writer = OwnedDescriptor(taking: fds[1])
    writer.close()
    let source = RecordPipeSource(
      OwnedDescriptor(taking: fds[0]),
      identity: DeviceIdentity(devnode: "/dev/input/event7", name: "Pad"),
      keys: [.keypad(1), .kpEnter], leds: [numLock: true, capsLock: false], sounds: [tone])
    return (source.device(), source)
  }

  /// The writes after `from`, SYN_REPORTs left out, each with the clock's time then.
  final class Recorder {
    let source: RecordPipeSource
    var seen = 0
    var log: [(at: Double, type: UInt16, code: UInt16, value: Int32)] = []
    init(_ source: RecordPipeSource) { self.source = source }
    func take(at: Double) {
      let writes = source.written
      for write in writes[seen...] where write.type != 0 {
        log.append((at, write.type, write.code, write.value))
      }
      seen = writes.count
    }
    func tones() -> [Int32] { log.filter { $0.type == sndType }.map(\.value) }
    func caps() -> [(Double, Int32)] {
      log.filter { $0.type == ledType && $0.code == capsLock }.map { ($0.at, $0.value) }
    }
  }

  /// Answers the next code message with `result` and waits for its verdict.
  static func answer(_ client: TestClient, _ result: String) throws {
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": result])
    #expect(try client.waitFor("verdict", timeout: 3) != nil)
  }

  /// Runs `steps` of `step` seconds, recording after each.
  static func run(_ harness: DaemonHarness, _ recorder: Recorder, seconds: Double, from: Double) {
    var t = 0.0
    while t < seconds - 1e-9 {
      harness.advance(0.01)
      t += 0.01
      recorder.take(at: from + t)
    }
  }

  @Test(
    "a click per key, the same for a right and a wrong PIN; a grant lights CapsLock (off at open, NumLock on) for 2 s without a door, with a rising two-tone; a denial blinks three times; the exit restores"
  )
  func patterns() throws {
    let harness = try DaemonHarness()  // no [Door]: the grant's light lasts 2 s
    let (device, source) = Self.pad()
    let keypad = harness.daemon.session.defaultKeypad
    harness.input.feedbackDevices = [(keypad, device)]
    let recorder = Recorder(source)
    let client = try harness.connect()

    harness.type("1234E", numeric: true, gap: 0.05)
    recorder.take(at: 0)
    let rightKeys = recorder.tones()
    #expect(rightKeys.filter { $0 == 2000 }.count == 5 && Set(rightKeys) == [0, 2000])
    recorder.take(at: 0)
    recorder.log = []
    try Self.answer(client, "granted")
    recorder.take(at: 0)
    Self.run(harness, recorder, seconds: 3, from: 0)
    #expect(recorder.tones() == [1000, 1500, 0])
    let grant = recorder.caps()
    #expect(grant.map(\.1) == [1, 0])
    if grant.count == 2 { #expect(abs(grant[1].0 - grant[0].0 - 2) < 0.02) }

    recorder.log = []
    harness.type("9876E", numeric: true, gap: 0.05)
    recorder.take(at: 0)
    #expect(recorder.tones() == rightKeys, "a wrong PIN clicked differently")
    recorder.take(at: 0)
    recorder.log = []
    try Self.answer(client, "denied")
    recorder.take(at: 0)
    Self.run(harness, recorder, seconds: 1.5, from: 0)
    #expect(recorder.caps().map(\.1) == [1, 0, 1, 0, 1, 0])
    #expect(recorder.tones() == [300, 0])

    // A grant, then the exit while it shows: CapsLock off, the tone silenced.
    harness.type("1111E", numeric: true, gap: 0.05)
    try Self.answer(client, "granted")
    recorder.log = []
    recorder.take(at: 0)
    #expect(recorder.caps().map(\.1) == [1])
    recorder.log = []
    #expect(harness.stop() == 0)
    recorder.take(at: 0)
    #expect(recorder.caps().map(\.1) == [0])
    #expect(recorder.tones().last == 0)
    #expect(!source.written.contains { $0.type == Self.ledType && $0.code == Self.numLock })
  }

  @Test(
    "a keypad with nothing to show its feedback on plays no pattern (no wake-up to end a click); a device of it plugged in later clicks at the next key"
  )
  func nothingToShowOn() throws {
    let harness = try DaemonHarness()  // no [Door], no device yet
    // 20 ms on, the key is taken (after the 15 ms burst window) and a click would still
    // sound (25 ms).
    harness.type("1", numeric: true, gap: 0.02)
    #expect(harness.daemon.feedback.nextDeadline == nil)
    harness.advance(0.1)
    let (device, source) = Self.pad()
    harness.input.feedbackDevices = [(harness.daemon.session.defaultKeypad, device)]
    let recorder = Recorder(source)
    harness.type("2", numeric: true, gap: 0.02)
    #expect(harness.daemon.feedback.nextDeadline != nil)
    recorder.take(at: 0)
    #expect(recorder.tones() == [2000])
    #expect(harness.stop() == 0)
  }

  @Test("Feedback=none: nothing is written to the keypad's device")
  func none() throws {
    let harness = try DaemonHarness(config: "[Keypad quiet]\nMatch=*\nFeedback=none\n")
    let (device, source) = Self.pad()
    harness.input.feedbackDevices = [("quiet", device)]
    harness.type("12", keypad: "quiet", numeric: true)
    #expect(harness.stop() == 0)
    #expect(source.written.isEmpty)
  }

  @Test("SIGHUP switching a keypad to Feedback=none puts its LED back and silences it at once")
  func reloadToNone() throws {
    let harness = try DaemonHarness(config: "[Keypad pad]\nMatch=*\n")
    let (device, source) = Self.pad()
    harness.input.feedbackDevices = [("pad", device)]
    let recorder = Recorder(source)
    let client = try harness.connect()
    harness.type("1234E", keypad: "pad", numeric: true, gap: 0.05)
    try Self.answer(client, "granted")
    recorder.take(at: 0)
    #expect(recorder.caps().map(\.1) == [1] && recorder.tones().last == 1000)
    recorder.log = []
    _ = harness.dir.write("pinpadd.conf", "[Keypad pad]\nMatch=*\nFeedback=none\n")
    harness.inTurn { [daemon = harness.daemon] in daemon.reload() }
    recorder.take(at: 0)
    #expect(recorder.caps().map(\.1) == [0] && recorder.tones() == [0])
    recorder.log = []
    harness.advance(3)
    harness.type("12", keypad: "pad", numeric: true)
    #expect(harness.stop() == 0)
    recorder.take(at: 0)
    #expect(recorder.log.isEmpty, "written after Feedback=none: \(recorder.log)")
  }
}
