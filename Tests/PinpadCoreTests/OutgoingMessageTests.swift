import PinpadCore
import Testing

/// The typed messages of the Session and the Doors, encoded at the edge: each kind's
/// exact line (docs/protocol.md, "Socket"), and the same bytes as `DaemonMessage` writes.
@Suite struct OutgoingMessageTests {
  @Test("an entry message's line")
  func entry() {
    #expect(
      OutgoingMessage.entry(keypad: "front", event: .changed, length: 3).line
        == #"{"type":"entry","keypad":"front","event":"changed","length":3}"# + "\n")
    #expect(
      OutgoingMessage.entry(keypad: "door", event: .cardRead, length: 0).line
        == #"{"type":"entry","keypad":"door","event":"card_read","length":0}"# + "\n")
  }

  @Test("a keypad message's line, for a keypad and for a card reader")
  func keypad() {
    #expect(
      OutgoingMessage.keypad(name: "door", added: true, device: "/dev/input/event3", role: .keypad)
        .line
        == #"{"type":"keypad","keypad":"door","event":"added","device":"/dev/input/event3","role":"keypad"}"#
        + "\n")
    #expect(
      OutgoingMessage.keypad(name: "door", added: false, device: "/dev/x", role: .cardReader).line
        == #"{"type":"keypad","keypad":"door","event":"removed","device":"/dev/x","role":"card_reader"}"#
        + "\n")
  }

  @Test("a verdict message's line, with its reason only when there is one")
  func verdict() {
    for result in VerdictResult.allCases {
      #expect(
        OutgoingMessage.verdict(id: "ab", result: result).line
          == #"{"type":"verdict","id":"ab","result":""# + result.rawValue + #""}"# + "\n")
    }
    #expect(
      OutgoingMessage.verdict(id: "ab", result: .denied, reason: "expired").line
        == #"{"type":"verdict","id":"ab","result":"denied","reason":"expired"}"# + "\n")
  }

  @Test("lockout, alarm and error lines")
  func lockoutAlarmError() {
    #expect(
      OutgoingMessage.lockout(keypad: "side", seconds: 30).line
        == #"{"type":"lockout","keypad":"side","seconds":30}"# + "\n")
    #expect(
      OutgoingMessage.alarm(reason: "duress", keypad: "door", id: "ab-7").line
        == #"{"type":"alarm","reason":"duress","keypad":"door","id":"ab-7"}"# + "\n")
    #expect(
      OutgoingMessage.error("unknown attempt id").line
        == #"{"type":"error","reason":"unknown attempt id"}"# + "\n")
  }

  @Test("a status line: members in order, failures left out while locked, doors when given")
  func status() {
    var report = StatusReport(
      version: "1.2.3",
      keypads: [
        .init(name: "a", phase: .locked(until: .zero), length: 0, failures: nil, lockedSeconds: 7),
        .init(name: "b", phase: .idle, length: 0, failures: 2, lockedSeconds: 0),
      ],
      inputs: ["auto", "terminal"], clients: 2, queuedBytes: 64, lockoutsSaved: false, pending: 1,
      doors: nil)
    let line =
      #"{"type":"status","version":"1.2.3","keypads":["#
      + #"{"name":"a","state":"locked","length":0,"locked_seconds":7},"#
      + #"{"name":"b","state":"idle","length":0,"failures":2,"locked_seconds":0}],"#
      + #""inputs":["auto","terminal"],"clients":2,"queued_bytes":64,"lockouts_saved":false,"#
      + #""pending":1"#
    #expect(OutgoingMessage.status(report).line == line + "}\n")
    report.doors = .array([.object([("name", .string("main"))])])
    #expect(OutgoingMessage.status(report).line == line + #","doors":[{"name":"main"}]}"# + "\n")
  }

  @Test(
    "every kind writes DaemonMessage's bytes, whatever its names hold",
    arguments: JSONLineTests.names)
  func sameBytesAsDaemonMessage(_ name: String) {
    for event in EntryEvent.allCases {
      #expect(
        OutgoingMessage.entry(keypad: name, event: event, length: 12).line
          == DaemonMessage.entry(keypad: name, event: event, length: 12))
    }
    for role in DeviceRole.allCases {
      #expect(
        OutgoingMessage.keypad(name: name, added: true, device: name, role: role).line
          == DaemonMessage.keypad(name: name, added: true, device: name, role: role))
    }
    #expect(
      OutgoingMessage.verdict(id: name, result: .denied, reason: name).line
        == DaemonMessage.verdict(id: name, result: "denied", reason: name))
    #expect(
      OutgoingMessage.lockout(keypad: name, seconds: 60).line
        == DaemonMessage.lockout(keypad: name, seconds: 60))
    #expect(
      OutgoingMessage.alarm(reason: "duress", keypad: name, id: name).line
        == DaemonMessage.alarm(reason: "duress", keypad: name, id: name))
    #expect(
      OutgoingMessage.door(name, event: .unlocked, by: .attempt(name)).line
        == DaemonMessage.door(name, event: "unlocked", by: name))
    #expect(OutgoingMessage.error(name).line == DaemonMessage.error(name))
    let report = StatusReport(
      version: name,
      keypads: [.init(name: name, phase: .idle, length: 0, failures: 0, lockedSeconds: 0)],
      inputs: [name], clients: 0, queuedBytes: 0, lockoutsSaved: true, pending: 0, doors: nil)
    #expect(
      OutgoingMessage.status(report).line
        == DaemonMessage.status([
          ("version", .string(name)),
          (
            "keypads",
            .array([
              .object([
                ("name", .string(name)), ("state", .string("idle")), ("length", .number(0)),
                ("failures", .number(0)), ("locked_seconds", .number(0)),
              ])
            ])
          ),
          ("inputs", .array([.string(name)])), ("clients", .number(0)),
          ("queued_bytes", .number(0)), ("lockouts_saved", .bool(true)), ("pending", .number(0)),
        ]))
  }
}

/// The shell's encoder: the bytes of `line`, and entry lines built once.
@Suite struct OutgoingLinesTests {
  /// Where a line's bytes are (the same for a line handed out again, not rebuilt).
  private func storage(_ lines: inout OutgoingLines, _ message: OutgoingMessage) -> UInt {
    lines.withLine(message) { UInt(bitPattern: $0.baseAddress) }
  }

  @Test("every message comes out as its line")
  func sameAsLine() {
    var lines = OutgoingLines()
    let messages: [OutgoingMessage] = [
      .entry(keypad: "k", event: .started, length: 1),
      .entry(keypad: "k", event: .started, length: 1),
      .keypad(name: "k", added: true, device: "/dev/x", role: .keypad),
      .verdict(id: "i", result: .granted), .lockout(keypad: "k", seconds: 30),
      .alarm(reason: "duress", keypad: "k", id: "i"), .door("d", event: .locked, by: nil),
      .error("e"),
    ]
    for message in messages { #expect(lines.line(message) == message.line) }
    // Out of the cached range: built each time, still right.
    for length in [-1, 33, 1000] {
      let message = OutgoingMessage.entry(keypad: "k", event: .changed, length: length)
      #expect(
        lines.line(message) == DaemonMessage.entry(keypad: "k", event: .changed, length: length))
    }
  }

  @Test("an entry line is built once per keypad, event and length, then handed out again")
  func entryLinesBuiltOnce() {
    var lines = OutgoingLines()
    let message = OutgoingMessage.entry(keypad: "door", event: .changed, length: 2)
    let first = lines.line(message)
    let again = lines.line(message)
    #expect(again == first)
    #expect(storage(&lines, message) == storage(&lines, message), "the line was built again")
    #expect(
      storage(&lines, message)
        != storage(&lines, .entry(keypad: "door", event: .started, length: 2)))
    let other = lines.line(.entry(keypad: "gate", event: .changed, length: 2))
    #expect(other == DaemonMessage.entry(keypad: "gate", event: .changed, length: 2))
    #expect(lines.line(.entry(keypad: "door", event: .changed, length: 3)) != first)
    lines.forget()
    #expect(lines.line(.entry(keypad: "door", event: .changed, length: 2)) == first)
  }

  @Test("past its bound the cache starts afresh and its lines stay right")
  func boundedCache() {
    var lines = OutgoingLines()
    let wrong = (0..<5000).filter { n in
      let message = OutgoingMessage.entry(keypad: "k\(n)", event: .changed, length: n % 33)
      return lines.line(message) != message.line
    }
    #expect(wrong.isEmpty)
    #expect(
      lines.line(.entry(keypad: "k", event: .changed, length: 1))
        == DaemonMessage.entry(keypad: "k", event: .changed, length: 1))
  }
}
