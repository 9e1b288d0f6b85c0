import PinpadTestSupport
import Testing

@testable import PinpadCore

/// A USB keypad (SEM HCT, 1a2c:0e24) typing 1234 then Enter, as `evemu-record` 2.7
/// writes it: the host had NumLock off, so the keypad wraps each digit in synthetic
/// NumLock presses, and the kernel echoes the host's LED changes into the stream.
private let keypadRecording = #"""
  # EVEMU 1.3
  # Kernel: 6.1.0-18-amd64
  # DMI: dmi:bvnLENOVO:bvrN2HET62W(1.45):bd02/04/2022:svnLENOVO:pn20QDCTO1WW:
  # Input device name: "SEM HCT Keyboard"
  # Input device ID: bus 0x03 vendor 0x1a2c product 0x0e24 version 0x110
  # Supported events:
  #   Event type 0 (EV_SYN)
  #     Event code 0 (SYN_REPORT)
  #     Event code 1 (SYN_CONFIG)
  #     Event code 4 (SYN_MSC)
  #   Event type 1 (EV_KEY)
  #     Event code 14 (KEY_BACKSPACE)
  #     Event code 69 (KEY_NUMLOCK)
  #     Event code 79 (KEY_KP1)
  #     Event code 96 (KEY_KPENTER)
  #   Event type 4 (EV_MSC)
  #     Event code 4 (MSC_SCAN)
  #   Event type 17 (EV_LED)
  #     Event code 0 (LED_NUML)
  #        State 0
  #   Event type 20 (EV_REP)
  #     Event code 0 (REP_DELAY)
  #       Value    250
  #     Event code 1 (REP_PERIOD)
  #       Value     33
  # Properties:
  N: SEM HCT Keyboard
  I: 0003 1a2c 0e24 0110
  P: 00 00 00 00 00 00 00 00
  B: 00 13 00 12 00 00 00 00 00
  B: 01 00 40 00 00 00 00 00 00
  B: 01 20 80 ff 03 01 00 00 00
  B: 02 00 00 00 00 00 00 00 00
  B: 04 10 00 00 00 00 00 00 00
  B: 11 07 00 00 00 00 00 00 00
  B: 14 03 00 00 00 00 00 00 00
  ################################
  #      Waiting for events      #
  ################################
  E: 0.000000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.000000 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 0.000000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 0.000200 0011 0000 0001	# EV_LED / LED_NUML             1
  E: 0.000200 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 0.008000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.008000 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 0.008000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 0.016000 0004 0004 458841	# EV_MSC / MSC_SCAN             458841
  E: 0.016000 0001 004f 0001	# EV_KEY / KEY_KP1              1
  E: 0.016000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 0.096000 0004 0004 458841	# EV_MSC / MSC_SCAN             458841
  E: 0.096000 0001 004f 0000	# EV_KEY / KEY_KP1              0
  E: 0.096000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +80ms
  E: 0.104000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.104000 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 0.104000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 0.104200 0011 0000 0000	# EV_LED / LED_NUML             0
  E: 0.104200 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 0.112000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.112000 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 0.112000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 0.612345 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.612345 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 0.612345 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +500ms
  E: 0.612545 0011 0000 0001	# EV_LED / LED_NUML             1
  E: 0.612545 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 0.620345 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.620345 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 0.620345 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 0.628345 0004 0004 458842	# EV_MSC / MSC_SCAN             458842
  E: 0.628345 0001 0050 0001	# EV_KEY / KEY_KP2              1
  E: 0.628345 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 0.708345 0004 0004 458842	# EV_MSC / MSC_SCAN             458842
  E: 0.708345 0001 0050 0000	# EV_KEY / KEY_KP2              0
  E: 0.708345 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +80ms
  E: 0.716345 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.716345 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 0.716345 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 0.716545 0011 0000 0000	# EV_LED / LED_NUML             0
  E: 0.716545 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 0.724345 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 0.724345 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 0.724345 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 1.230000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.230000 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 1.230000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +505ms
  E: 1.230200 0011 0000 0001	# EV_LED / LED_NUML             1
  E: 1.230200 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 1.238000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.238000 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 1.238000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 1.246000 0004 0004 458843	# EV_MSC / MSC_SCAN             458843
  E: 1.246000 0001 0051 0001	# EV_KEY / KEY_KP3              1
  E: 1.246000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 1.326000 0004 0004 458843	# EV_MSC / MSC_SCAN             458843
  E: 1.326000 0001 0051 0000	# EV_KEY / KEY_KP3              0
  E: 1.326000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +80ms
  E: 1.334000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.334000 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 1.334000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 1.334200 0011 0000 0000	# EV_LED / LED_NUML             0
  E: 1.334200 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 1.342000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.342000 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 1.342000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 1.804000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.804000 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 1.804000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +462ms
  E: 1.804200 0011 0000 0001	# EV_LED / LED_NUML             1
  E: 1.804200 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 1.812000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.812000 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 1.812000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 1.820000 0004 0004 458844	# EV_MSC / MSC_SCAN             458844
  E: 1.820000 0001 004b 0001	# EV_KEY / KEY_KP4              1
  E: 1.820000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 1.900000 0004 0004 458844	# EV_MSC / MSC_SCAN             458844
  E: 1.900000 0001 004b 0000	# EV_KEY / KEY_KP4              0
  E: 1.900000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +80ms
  E: 1.908000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.908000 0001 0045 0001	# EV_KEY / KEY_NUMLOCK          1
  E: 1.908000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +8ms
  E: 1.908200 0011 0000 0000	# EV_LED / LED_NUML             0
  E: 1.908200 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
  E: 1.916000 0004 0004 458835	# EV_MSC / MSC_SCAN             458835
  E: 1.916000 0001 0045 0000	# EV_KEY / KEY_NUMLOCK          0
  E: 1.916000 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +7ms
  E: 2.450500 0004 0004 458840	# EV_MSC / MSC_SCAN             458840
  E: 2.450500 0001 0060 0001	# EV_KEY / KEY_KPENTER          1
  E: 2.450500 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +534ms
  E: 2.538500 0004 0004 458840	# EV_MSC / MSC_SCAN             458840
  E: 2.538500 0001 0060 0000	# EV_KEY / KEY_KPENTER          0
  E: 2.538500 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +88ms
  """#

private func keyPresses(_ events: [RecordedEvent]) -> [KeyCode] {
  events.filter { $0.type == 1 && $0.value == 1 }.map { KeyCode($0.code) }
}

@Test func aKeypadRecordingYieldsEveryEventInOrder() throws {
  let events = try EvemuRecording.parse(keypadRecording, path: "keypad.evemu")
  #expect(events.count == 94)
  #expect(events.first == RecordedEvent(time: .zero, type: 4, code: 4, value: 458_835))
  #expect(events.last == RecordedEvent(time: .microseconds(2_538_500), type: 0, code: 0, value: 0))
}

@Test func aKeypadRecordingCarriesTheDigitsBetweenNumLockPresses() throws {
  let events = try EvemuRecording.parse(keypadRecording, path: "keypad.evemu")
  let numLock = KeyCode.numLock
  #expect(
    keyPresses(events) == [
      numLock, .keypad(1), numLock, numLock, .keypad(2), numLock,
      numLock, .keypad(3), numLock, numLock, .keypad(4), numLock, .kpEnter,
    ])
  let digits = keyPresses(events).compactMap(\.digit)
  #expect(digits == [1, 2, 3, 4])
}

@Test func timesAreOffsetsFromTheFirstEvent() throws {
  let events = try EvemuRecording.parse(keypadRecording, path: "keypad.evemu")
  let presses = events.filter { $0.type == 1 && $0.value == 1 && KeyCode($0.code).digit != nil }
  #expect(
    presses.map(\.time) == [
      .microseconds(16_000), .microseconds(628_345), .microseconds(1_246_000),
      .microseconds(1_820_000),
    ])
}

@Test func absoluteKernelTimestampsBecomeOffsets() throws {
  let text = """
    E: 1700000000.123456 0001 004f 0001
    E: 1700000000.123456 0000 0000 0000
    E: 1700000001.023457 0001 004f 0000
    """
  let events = try EvemuRecording.parse(text, path: "old.evemu")
  #expect(events.map(\.time) == [.zero, .zero, .microseconds(900_001)])
  #expect(events[0] == RecordedEvent(time: .zero, type: 1, code: 0x4f, value: 1))
}

@Test func negativeValuesInEvemuPaddingParse() throws {
  // evemu prints values with %04d: -1 is "-001" (a relative axis moving left).
  let events = try EvemuRecording.parse("E: 0.000000 0002 0000 -001\n", path: "mouse.evemu")
  #expect(events == [RecordedEvent(time: .zero, type: 2, code: 0, value: -1)])
}

@Test func eventLinesWithoutCommentsAndWithCRLFParse() throws {
  let text = "N: x\r\nE: 0.5 1 4f 1\r\n\r\nE: 0.75 0 0 0\r\n"
  let events = try EvemuRecording.parse(text, path: "r")
  #expect(
    events == [
      RecordedEvent(time: .zero, type: 1, code: 0x4f, value: 1),
      RecordedEvent(time: .milliseconds(250), type: 0, code: 0, value: 0),
    ])
}

@Test func aRecordingWithoutEventsIsEmpty() throws {
  #expect(try EvemuRecording.parse("", path: "r").isEmpty)
  #expect(try EvemuRecording.parse("# EVEMU 1.3\nN: keypad\nI: 0003 1 2 3\n", path: "r").isEmpty)
}

struct BadRecording: Sendable, CustomStringConvertible {
  var line: String
  var message: String
  var description: String { line }
}

@Test(arguments: [
  BadRecording(
    line: "E: 0.000000 0001 004f",
    message: "an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found 3"),
  BadRecording(
    line: "E: 0.000000 0001 004f 1 7",
    message: "an E: line needs 4 fields (SECONDS TYPE CODE VALUE), found 5"),
  BadRecording(
    line: "E: soon 0001 004f 1", message: "soon is not a timestamp like 1700000000.123456"),
  BadRecording(
    line: "E: -1.000000 0001 004f 1", message: "-1.000000 is not a timestamp like 1700000000.123456"
  ),
  BadRecording(
    line: "E: 1.0000000001 0001 004f 1",
    message: "1.0000000001 is not a timestamp like 1700000000.123456"),
  BadRecording(line: "E: 1.5 zz 004f 1", message: "event type zz is not 1 to 4 hex digits"),
  BadRecording(line: "E: 1.5 0001 1004f 1", message: "event code 1004f is not 1 to 4 hex digits"),
  BadRecording(
    line: "E: 1.5 0001 004f 1.0", message: "event value 1.0 is not a 32-bit decimal number"),
  BadRecording(
    line: "E: 1.5 0001 004f 4294967296",
    message: "event value 4294967296 is not a 32-bit decimal number"),
  BadRecording(
    line: "X: something", message: "not an evemu-record line (expected E: SECONDS TYPE CODE VALUE)"),
  BadRecording(
    line: "1.5 0001 004f 1",
    message: "not an evemu-record line (expected E: SECONDS TYPE CODE VALUE)"),
])
func malformedLinesAreErrorsWithTheirLineNumber(_ bad: BadRecording) {
  let text = "# EVEMU 1.3\nN: keypad\nE: 1.000000 0000 0000 0000\n\(bad.line)\nE: 2.0 0 0 0\n"
  #expect(throws: RecordingError(path: "bad.evemu", line: 4, message: bad.message)) {
    try EvemuRecording.parse(text, path: "bad.evemu")
  }
}

@Test func timeGoingBackwardsIsAnError() {
  let text = "E: 5.000000 0001 004f 1\nE: 4.999999 0001 004f 0\n"
  let error = RecordingError(
    path: "r.evemu", line: 2, message: "time 4.999999 is earlier than the event before it")
  #expect(throws: error) { try EvemuRecording.parse(text, path: "r.evemu") }
  #expect(error.description == "r.evemu:2: time 4.999999 is earlier than the event before it")
}

@Test func theWriterRecordsPressAndReleaseReportsWithTheGapsAsked() throws {
  let text = EvemuWriter.keyPresses([
    (.keypad(1), gapSeconds: 0.5), (.keypad(2), gapSeconds: 0.25), (.kpEnter, gapSeconds: 0.01),
  ])
  let events = try EvemuRecording.parse(text, path: "written.evemu")
  let kp1 = KeyCode.keypad(1).rawValue
  let kp2 = KeyCode.keypad(2).rawValue
  let enter = KeyCode.kpEnter.rawValue
  func key(_ ms: Double, _ code: UInt16, _ value: Int32) -> [RecordedEvent] {
    let time = Duration.microseconds(Int64(ms * 1000 + 0.5))
    return [
      RecordedEvent(time: time, type: 1, code: code, value: value),
      RecordedEvent(time: time, type: 0, code: 0, value: 0),
    ]
  }
  var expected = [RecordedEvent(time: .zero, type: 0, code: 0, value: 0)]
  expected += key(500, kp1, 1) + key(550, kp1, 0)
  expected += key(750, kp2, 1) + key(755, kp2, 0)  // held only half the 10 ms to the next key
  expected += key(760, enter, 1) + key(810, enter, 0)
  #expect(events == expected)
}

@Test func theWriterProducesLinesAsEvemuRecordDoes() {
  let text = EvemuWriter.keyPresses([(.kpEnter, gapSeconds: 1.5)])
  #expect(text.hasPrefix("# EVEMU 1.3\n"))
  #expect(text.contains("\nE: 1.500000 0001 0060 0001\t# EV_KEY / KEY_KPENTER "))
  #expect(text.contains("\nE: 1.550000 0000 0000 0000\t# ------------ SYN_REPORT (0)"))
}

@Test func anEmptyWriterRecordingParses() throws {
  let events = try EvemuRecording.parse(EvemuWriter.keyPresses([]), path: "empty.evemu")
  #expect(events == [RecordedEvent(time: .zero, type: 0, code: 0, value: 0)])
}

@Suite struct EvemuRecordedDeviceTests {
  @Test("the recorded device's N: and I: lines name it, so CardReader= tokens can match it")
  func recordedDevice() {
    let text = EvemuWriter.keyPresses([(KeyCode(2), gapSeconds: 0.1)], name: "ACME Card Reader")
    let device = EvemuRecording.device(text, path: "/tmp/reader.txt")
    #expect(device.name == "ACME Card Reader")
    #expect(device.vendor == 0x1234 && device.product == 0x5678 && device.bustype == 3)
    var door = KeypadConfig(name: "door")
    door.cardMode = .card
    for token in ["usb:1234:5678", "name:ACME*", "*Card?Reader"] {
      door.cardReader = [token]
      let assignment = KeypadMatcher(keypads: [door]).keypad(
        for: device, capabilities: DeviceCapabilities(hasDigitKeys: true))
      #expect(assignment?.isCardReader == true, "\(token)")
    }
    // A recording without a description is no one's card reader.
    let bare = EvemuRecording.device("E: 0.000000 0001 0002 0001\n", path: "x")
    #expect(bare.name.isEmpty && bare.vendor == 0)
  }

  @Test(
    "the description is read from the header alone: CRLF lines, the first N:, no line after the first E:"
  )
  func headerOnly() {
    let text =
      "# EVEMU 1.3\r\nN: Pad \u{e9}\r\nN: second name\r\nI: 0003 1a2c 0e24 0110\r\n"
      + "E: 0.000000 0001 0002 0001\r\nN: after the events\nI: 0005 ffff ffff 0001\n"
    let device = EvemuRecording.device(text, path: "r")
    #expect(device.name == "Pad \u{e9}")
    #expect(device.bustype == 3 && device.vendor == 0x1a2c && device.product == 0x0e24)
    #expect(device.devnode == "r")
    // The bytes of a file's first chunk give the same, cut anywhere in the events.
    let bytes = Array(text.utf8)
    #expect(EvemuRecording.device(bytes[..<(bytes.count - 20)], path: "r") == device)
    // An I: line that is not three hex numbers leaves the ids unset; one too large too.
    for ids in ["0003 1a2c", "0003 zz 0e24", "0003 10000 0e24", ""] {
      let bad = EvemuRecording.device("N: x\nI: \(ids)\n", path: "r")
      #expect(bad.name == "x" && bad.vendor == 0 && bad.product == 0, "\(ids)")
    }
    // No newline at all: the one line is the header.
    #expect(EvemuRecording.device("N: only", path: "r").name == "only")
  }
}
