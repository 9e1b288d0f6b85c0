import Testing

@testable import PinpadCore

private func core(discovery: Bool = true, keypads: [String] = ["default"]) -> BridgeCore {
  BridgeCore(
    topic: "pinpadd/door1", discovery: discovery, discoveryPrefix: "homeassistant",
    maxFailures: 5, version: "1.0", keypads: keypads)
}

private func status(_ keypads: [(String, String, Int, Int)]) -> String {
  JSONValue.object([
    ("type", .string("status")),
    (
      "keypads",
      .array(
        keypads.map {
          .object([
            ("name", .string($0.0)), ("state", .string($0.1)),
            ("failures", .number(Double($0.2))), ("locked_seconds", .number(Double($0.3))),
          ])
        })
    ),
  ]).serialized
}

private func published(_ actions: [BridgeCore.Action]) -> [(String, String, Bool)] {
  actions.compactMap {
    if case .publish(let topic, let payload, let retain) = $0 { return (topic, payload, retain) }
    return nil
  }
}

@Suite struct BridgeCoreTests {
  @Test("a daemon connection publishes online (retained) and asks for status")
  func connected() {
    var bridge = core()
    let actions = bridge.daemonConnected()
    #expect(
      actions == [
        .publish(topic: "pinpadd/door1/status", payload: "online", retain: true),
        .sendToDaemon(#"{"type":"status"}"#),
      ])
    #expect(
      bridge.daemonLost() == [
        .publish(topic: "pinpadd/door1/status", payload: "offline", retain: true)
      ])
  }

  @Test("state is retained and published only when it changes")
  func stateOnChange() {
    var bridge = core(discovery: false)
    _ = bridge.daemonConnected()
    let first = published(bridge.daemonLine(status([("default", "idle", 0, 0)]), now: .zero))
    #expect(first.count == 1)
    #expect(first.first?.0 == "pinpadd/door1/default/state")
    #expect(first.first?.1 == #"{"phase":"idle","attempts_left":5,"locked_seconds":0}"#)
    #expect(first.first?.2 == true)
    #expect(published(bridge.daemonLine(status([("default", "idle", 0, 0)]), now: .zero)).isEmpty)
    let denied = published(bridge.daemonLine(status([("default", "idle", 2, 0)]), now: .zero))
    #expect(denied.map(\.1) == [#"{"phase":"idle","attempts_left":3,"locked_seconds":0}"#])
  }

  @Test("a configured keypad the daemon has not listed yet is announced idle")
  func configuredKeypads() {
    var bridge = core(discovery: false, keypads: ["front", "back"])
    _ = bridge.daemonConnected()
    let out = published(bridge.daemonLine(status([("back", "entering", 0, 0)]), now: .zero))
    #expect(out.map(\.0) == ["pinpadd/door1/back/state", "pinpadd/door1/front/state"])
    #expect(out.last?.1.contains(#""phase":"idle""#) == true)
  }

  @Test("a lockout asks for status again just after it ends")
  func lockoutTimer() {
    var bridge = core(discovery: false)
    _ = bridge.daemonConnected()
    let out = published(bridge.daemonLine(status([("default", "locked", 5, 30)]), now: .zero))
    #expect(out.map(\.1) == [#"{"phase":"locked","attempts_left":0,"locked_seconds":30}"#])
    #expect(bridge.tick(now: .zero + .seconds(29)).isEmpty)
    #expect(bridge.tick(now: .zero + .seconds(31)) == [.sendToDaemon(#"{"type":"status"}"#)])
    #expect(bridge.tick(now: .zero + .seconds(32)).isEmpty)
  }

  @Test("events go to TOPIC/KEYPAD/event as sent, unretained; a verdict finds its keypad by id")
  func events() {
    var bridge = core(discovery: false)
    let entry = #"{"type":"entry","keypad":"front door","event":"started","length":1}"#
    #expect(
      bridge.daemonLine(entry, now: .zero) == [
        .publish(topic: "pinpadd/door1/front_door/event", payload: entry, retain: false),
        .sendToDaemon(#"{"type":"status"}"#),
      ])
    #expect(bridge.codeTopic(id: "a-1", keypad: "front door") == "pinpadd/door1/front_door/code")
    let verdict = #"{"type":"verdict","id":"a-1","result":"granted"}"#
    #expect(
      published(bridge.daemonLine(verdict, now: .zero)).map(\.0) == [
        "pinpadd/door1/front_door/event"
      ])
    // An id the bridge never saw (sent before it connected) has no topic to go to.
    #expect(
      published(bridge.daemonLine(#"{"type":"verdict","id":"z-9","result":"denied"}"#, now: .zero))
        .isEmpty)
    #expect(
      bridge.daemonLine(#"{"type":"error","reason":"unknown id"}"#, now: .zero) == [
        .warn("the daemon says: unknown id")
      ])
  }

  @Test("verdict payloads become daemon verdict lines; anything else is refused with a reason")
  func verdicts() throws {
    #expect(
      try BridgeCore.verdictLine(
        payload: Array(#"{"id":"a-1","result":"granted","message":"Hi"}"#.utf8)
      ).get()
        == #"{"type":"verdict","id":"a-1","result":"granted","message":"Hi"}"#)
    #expect(
      try BridgeCore.verdictLine(payload: Array(#"{"result":"denied","id":"b-2"}"#.utf8)).get()
        == #"{"type":"verdict","id":"b-2","result":"denied"}"#)
    #expect(
      try BridgeCore.verdictLine(
        payload: Array(#"{"id":"d","result":"granted","duress":true}"#.utf8)
      )
      .get() == #"{"type":"verdict","id":"d","result":"granted","duress":true}"#)
    #expect(
      try BridgeCore.verdictLine(
        payload: Array(#"{"id":"d","result":"granted","duress":false}"#.utf8)
      )
      .get() == #"{"type":"verdict","id":"d","result":"granted"}"#)
    for bad in [
      "", "[]", #"{"id":"x"}"#, #"{"id":"","result":"granted"}"#, #"{"id":"x","result":"maybe"}"#,
      #"{"id":"x","result":"denied","message":3}"#,
      #"{"id":"x","result":"granted","duress":"yes"}"#,
    ] {
      #expect(throws: RequestError.self) {
        try BridgeCore.verdictLine(payload: Array(bad.utf8)).get()
      }
    }
  }

  @Test("an alarm goes to TOPIC/KEYPAD/event, not retained, as the daemon wrote it")
  func alarm() {
    var bridge = core(keypads: ["door"])
    _ = bridge.daemonConnected()
    let line = DaemonMessage.alarm(reason: "duress", keypad: "door", id: "ab-1")
    let text = String(line.dropLast())
    let actions = bridge.daemonLine(text, now: .zero)
    #expect(
      actions.contains(.publish(topic: "pinpadd/door1/door/event", payload: text, retain: false)))
  }

  @Test(
    "discovery: an event entity and a phase sensor per keypad, retained, with availability and unique ids"
  )
  func discovery() throws {
    var bridge = core(keypads: ["front", "back"])
    _ = bridge.daemonConnected()
    let out = published(bridge.daemonLine(status([]), now: .zero))
    let configs = out.filter { $0.0.hasPrefix("homeassistant/") }
    #expect(configs.count == 4)
    var ids = Set<String>()
    for (topic, payload, retain) in configs {
      #expect(retain)
      #expect(topic.hasSuffix("/config"))
      let json = try JSONValue.parse(payload)
      #expect(json["availability_topic"]?.stringValue == "pinpadd/door1/status")
      #expect(json["device"]?["identifiers"] == .array([.string("pinpadd_door1")]))
      ids.insert(json["unique_id"]?.stringValue ?? "")
    }
    #expect(
      ids == [
        "pinpadd_door1_front_event", "pinpadd_door1_front_phase", "pinpadd_door1_back_event",
        "pinpadd_door1_back_phase",
      ])
    // Announced once per daemon connection.
    #expect(published(bridge.daemonLine(status([]), now: .zero)).isEmpty)
  }
}

@Suite struct BackoffTests {
  @Test("reconnect waits double from 1 s up to 30 s, and start again at 1 s after a success")
  func doubling() {
    var backoff = Backoff()
    let waits = (0..<7).map { _ in backoff.next().components.seconds }
    #expect(waits == [1, 2, 4, 8, 16, 30, 30])
    backoff.reset()
    #expect(backoff.next() == .seconds(1))
  }

  // Found by the mqtt fuzz target (fuzz/targets/mqtt.swift): Int(1e300) trapped.
  @Test("numbers in a status beyond Int's range are held at its ends, never a trap")
  func hugeStatusNumbers() {
    var bridge = core(discovery: false, keypads: [])
    let line =
      #"{"type":"status","keypads":[{"name":"a","state":"locked","failures":1e300,"#
      + #""locked_seconds":1e300},{"name":"b","state":"idle","failures":-9e18}]}"#
    let out = published(bridge.daemonLine(line, now: .zero))
    #expect(
      out.map(\.1) == [
        #"{"phase":"locked","attempts_left":0,"locked_seconds":9.223372036854776e+18}"#,
        #"{"phase":"idle","attempts_left":5,"locked_seconds":0}"#,
      ])
    #expect(bridge.nextStatusAt == Instant(nanoseconds: .max))
  }
}
