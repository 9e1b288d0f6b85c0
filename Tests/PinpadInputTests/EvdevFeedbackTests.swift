import CLibevdev
import Glibc
import PinpadCore
import PinpadInputTestSupport
import PinpadSystem
import Testing

@testable import PinpadInput

/// The keypad's LEDs and beeper (pinpadd.conf(5), Feedback=) through a simulated device:
/// what pinpadd writes, and that the echoes a grabbing reader reads back are no keys.
@Suite struct EvdevFeedbackTests {
  /// A device on a pipe with `leds` and `sounds`; its source (what was written to it)
  /// and the pipe's write end (to play the kernel) are returned with it.
  func device(leds: [UInt16: Bool] = [:], sounds: [UInt16] = []) -> (
    EvdevDevice, RecordPipeSource, OpenDescriptor
  ) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    let writer = OpenDescriptor(OwnedDescriptor(taking: fds[1]))
    let source = RecordPipeSource(
      OwnedDescriptor(taking: fds[0]),
      identity: DeviceIdentity(devnode: "/dev/input/event9", name: "Pad"),
      keys: [.keypad(1), .kpEnter], leds: leds, sounds: sounds)
    return (source.device(), source, writer)
  }

  @Test(
    "feedback shows on the first of NumLock, CapsLock, ScrollLock that was off at open, else the first of them, else the device's own LED"
  )
  func feedbackLEDChoice() {
    let (num, caps, scroll, mute) = (
      UInt16(LED_NUML), UInt16(LED_CAPSL), UInt16(LED_SCROLLL), UInt16(LED_MUTE)
    )
    let cases: [(leds: [UInt16: Bool], shows: UInt16?)] = [
      ([caps: false, num: true], caps),
      ([caps: true, num: true], num),
      ([caps: false, num: false], num),
      ([scroll: false, caps: false], caps),
      ([mute: false], mute),
      ([:], nil),
    ]
    for (leds, shows) in cases {
      #expect(device(leds: leds).0.feedbackLED == shows, "\(leds)")
    }
  }

  @Test("the LED state the device had is read, and a write changes it")
  func ledStateAndWrite() {
    let (pad, source, _) = device(leds: [UInt16(LED_NUML): true])
    #expect(pad.ledIsOn(UInt16(LED_NUML)))
    #expect(pad.setLED(UInt16(LED_NUML), on: false) == nil)
    #expect(!pad.ledIsOn(UInt16(LED_NUML)))
    let writes = source.written.map { "\($0.type):\($0.code):\($0.value)" }
    #expect(writes == ["\(EV_LED):\(LED_NUML):0", "\(EV_SYN):\(SYN_REPORT):0"])
  }

  @Test("a beeper with SND_TONE gets the pitch; one with SND_BELL only rings while it is not 0")
  func toneAndBell() {
    let (tone, toneSource, _) = device(sounds: [UInt16(SND_TONE), UInt16(SND_BELL)])
    #expect(tone.beeper == .tone)
    #expect(tone.sound(hz: 1500) == nil)
    #expect(tone.sound(hz: 0) == nil)
    #expect(
      toneSource.written.filter { $0.type == UInt16(EV_SND) }.map { "\($0.code):\($0.value)" }
        == ["\(SND_TONE):1500", "\(SND_TONE):0"])
    let (bell, bellSource, _) = device(sounds: [UInt16(SND_BELL)])
    #expect(bell.beeper == .bell)
    _ = bell.sound(hz: 300)
    _ = bell.sound(hz: 0)
    #expect(
      bellSource.written.filter { $0.type == UInt16(EV_SND) }.map { "\($0.code):\($0.value)" }
        == ["\(SND_BELL):1", "\(SND_BELL):0"])
    let (mute, _, _) = device()
    #expect(mute.beeper == nil)
    #expect(mute.sound(hz: 1000) != nil)
  }

  @Test("LED and sound events read back from the device are never keys")
  func echoesAreNoKeys() {
    let (pad, _, writer) = device(leds: [UInt16(LED_NUML): false], sounds: [UInt16(SND_TONE)])
    let records = [
      InputEvent(time: .zero, type: UInt16(EV_LED), code: UInt16(LED_NUML), value: 1),
      InputEvent(time: .zero, type: UInt16(EV_SND), code: UInt16(SND_TONE), value: 2000),
      InputEvent(time: .zero, type: UInt16(EV_KEY), code: KeyCode.keypad(1).rawValue, value: 1),
    ].flatMap(\.kernelRecord)
    _ = records.withUnsafeBytes { write(writer.fd, $0.baseAddress, $0.count) }
    let events = pad.readEvents().events
    #expect(events.map(\.type) == [UInt16(EV_KEY)])
  }

  @Test("a closed device writes nothing and says so")
  func closedDevice() {
    let (pad, source, _) = device(leds: [UInt16(LED_NUML): false], sounds: [UInt16(SND_TONE)])
    pad.close()
    #expect(pad.setLED(UInt16(LED_NUML), on: true) != nil)
    #expect(pad.feedbackLED == nil && pad.beeper == nil)
    #expect(source.written.isEmpty)
  }
}
