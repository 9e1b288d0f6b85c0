import PinpadCore
import Testing

@testable import PinpadControlCore

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

  @Test("while locked no attempt is left: the daemon's status has no failures then (SPEC 8.1)")
  func lockedLeavesNoAttempts() {
    var bridge = core(discovery: false)
    _ = bridge.daemonConnected()
    let line =
      #"{"type":"status","keypads":[{"name":"default","state":"locked","locked_seconds":30}]}"#
    #expect(
      published(bridge.daemonLine(line, now: .zero)).map(\.1) == [
        #"{"phase":"locked","attempts_left":0,"locked_seconds":30}"#
      ])
  }

  @Test("a code taken asks for status, so the retained state says checking until the verdict")
  func checkingWhileAwaitingVerdict() {
    var bridge = core(discovery: false)
    _ = bridge.daemonConnected()
    _ = bridge.daemonLine(status([("default", "entering", 0, 0)]), now: .zero)
    _ = bridge.codeTopic(id: "a-1", keypad: "default")
    #expect(bridge.codeTaken() == [.sendToDaemon(#"{"type":"status"}"#)])
    #expect(
      published(bridge.daemonLine(status([("default", "checking", 0, 0)]), now: .zero)).map(\.1)
        == [#"{"phase":"checking","attempts_left":5,"locked_seconds":0}"#])
    let verdict = #"{"type":"verdict","id":"a-1","result":"denied"}"#
    #expect(bridge.daemonLine(verdict, now: .zero).contains(.sendToDaemon(#"{"type":"status"}"#)))
    #expect(
      published(bridge.daemonLine(status([("default", "idle", 1, 0)]), now: .zero)).map(\.1)
        == [#"{"phase":"idle","attempts_left":4,"locked_seconds":0}"#])
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
    #expect(
      try BridgeCore.verdictLine(
        payload: Array(#"{"id":"r","result":"denied","reason":"wrong_door"}"#.utf8)
      )
      .get() == #"{"type":"verdict","id":"r","result":"denied","reason":"wrong_door"}"#)
    for bad in [
      #"{"id":"x","result":"denied","reason":"no way"}"#,
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

@Suite("Bridge: which verdicts reach the daemon (docs/protocol.md, MQTT: verdicts)")
struct BridgeVerdictTests {
  static let id = "0123456789abcdef0123456789abcdef"
  static func payload(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test("a verdict goes to the daemon only from the verdict topic of its attempt's own keypad")
  func ownKeypadOnly() throws {
    var bridge = core(keypads: ["lobby", "vault"])
    _ = bridge.codeTopic(id: Self.id, keypad: "lobby")
    let verdict = Self.payload(#"{"id":"\#(Self.id)","result":"granted"}"#)
    let line = try bridge.verdictLine(topic: "pinpadd/door1/lobby/verdict", payload: verdict).get()
    #expect(line.contains(Self.id))
    for topic in ["pinpadd/door1/vault/verdict", "pinpadd/door1/default/verdict"] {
      let refused = bridge.verdictLine(topic: topic, payload: verdict)
      #expect(throws: RequestError.self) { try refused.get() }
      if case .failure(let problem) = refused {
        #expect(problem.reason == "the verdict is for an attempt on another keypad (lobby)")
        #expect(!problem.reason.contains(Self.id))
      }
    }
  }

  @Test("the verdict topic must be the keypad's byte for byte, not a canonically equal one")
  func verdictTopicBytes() throws {
    var bridge = core(keypads: ["caf\u{E9}"])
    _ = bridge.codeTopic(id: Self.id, keypad: "caf\u{E9}")
    let verdict = Self.payload(#"{"id":"\#(Self.id)","result":"granted"}"#)
    // "café" with a combining accent: equal as Swift Strings, other bytes to the broker.
    let decomposed = "pinpadd/door1/cafe\u{301}/verdict"
    #expect(decomposed == "pinpadd/door1/caf\u{E9}/verdict")
    #expect(throws: RequestError.self) {
      try bridge.verdictLine(topic: decomposed, payload: verdict).get()
    }
    #expect(
      (try? bridge.verdictLine(topic: "pinpadd/door1/caf\u{E9}/verdict", payload: verdict).get())
        != nil)
  }

  @Test("a verdict for an id this bridge never sent is not forwarded, and its id is not quoted")
  func unknownId() {
    let bridge = core()
    let refused = bridge.verdictLine(
      topic: "pinpadd/door1/default/verdict",
      payload: Self.payload(#"{"id":"\#(Self.id)","result":"granted"}"#))
    guard case .failure(let problem) = refused else {
      Issue.record("forwarded")
      return
    }
    #expect(problem.reason == "the verdict's id is not a code this bridge sent lately")
  }

  @Test("the bridge remembers the last 1024 code ids, oldest forgotten first")
  func rememberedCodes() {
    var bridge = core()
    for i in 0..<(BridgeCore.rememberedCodes + 10) {
      _ = bridge.codeTopic(id: "id\(i)", keypad: "k\(i)")
    }
    #expect(bridge.keypad(ofCode: "id0") == nil)
    #expect(bridge.keypad(ofCode: "id9") == nil)
    #expect(bridge.keypad(ofCode: "id10") == "k10")
    #expect(
      bridge.keypad(ofCode: "id\(BridgeCore.rememberedCodes + 9)")
        == "k\(BridgeCore.rememberedCodes + 9)")
  }

  @Test("retained messages and payloads over 64 KiB are refused before the payload is read")
  func refusedUnread() {
    #expect(BridgeCore.refusalBeforeReading(retained: true, size: 10) != nil)
    #expect(BridgeCore.refusalBeforeReading(retained: false, size: 64 * 1024 + 1) != nil)
    #expect(BridgeCore.refusalBeforeReading(retained: false, size: 64 * 1024) == nil)
  }

  @Test(
    "a verdict's message is cut to 200 bytes on a character boundary and cleaned, so the line fits 4096 bytes",
    arguments: [
      String(repeating: "x", count: 5000), String(repeating: "\u{1}", count: 700),
      String(repeating: "é", count: 3000), String(repeating: "👍🏽", count: 900),
    ])
  func messageCut(message: String) throws {
    let payload = JSONValue.object([
      ("id", .string(Self.id)), ("result", .string("granted")), ("message", .string(message)),
    ]).serialized
    let line = try BridgeCore.verdictLine(payload: Array(payload.utf8)).get()
    let sent = try #require(try JSONValue.parse(line)["message"]?.stringValue)
    #expect(sent.utf8.count <= 200)
    #expect(message.hasPrefix(sent) || sent.isEmpty)
    #expect(line.utf8.count < 4096)
  }

  @Test("an id longer than 128 bytes is refused (no line can outgrow the socket's limit)")
  func longId() {
    let payload = #"{"id":"\#(String(repeating: "a", count: 5000))","result":"granted"}"#
    #expect(throws: RequestError.self) {
      try BridgeCore.verdictLine(payload: Array(payload.utf8)).get()
    }
  }
}

@Suite("Bridge: the daemon's outbox")
struct DaemonOutboxTests {
  static let t0 = Instant.seconds(100)

  @Test("lines wait whole until the socket takes them, in order, partial writes resumed")
  func partialWrites() {
    var box = DaemonOutbox(capacity: 64)
    #expect(box.enqueue("one", now: Self.t0) == nil)
    #expect(box.enqueue("two", now: Self.t0) == nil)
    var written: [UInt8] = []
    box.flush { bytes in
      written += bytes.prefix(5)
      return 5
    }
    #expect(!box.isEmpty)
    box.flush { bytes in
      written += bytes
      return bytes.count
    }
    #expect(box.isEmpty)
    #expect(String(decoding: written, as: UTF8.self) == "one\ntwo\n")
  }

  @Test("a full queue drops the line, counts it, says so at once and then at most every 5 s")
  func overflowCountedAndSaid() {
    var box = DaemonOutbox(capacity: 8)
    #expect(box.enqueue("1234567", now: Self.t0) == nil)
    let first = box.enqueue("x", now: Self.t0)
    #expect(first?.contains("a line for the daemon dropped (1 since the start)") == true)
    #expect(box.enqueue("y", now: Self.t0 + .seconds(1)) == nil)
    #expect(box.enqueue("z", now: Self.t0 + .seconds(2)) == nil)
    #expect(box.dropped == 3)
    #expect(box.nextReportAt == Self.t0 + .seconds(5))
    #expect(box.report(now: Self.t0 + .seconds(4)) == nil)
    let summary = box.report(now: Self.t0 + .seconds(5))
    #expect(summary?.contains("2 lines for the daemon dropped (3 since the start)") == true)
    #expect(box.report(now: Self.t0 + .seconds(20)) == nil)
    #expect(box.nextReportAt == nil)
  }

  @Test("nothing is lost while the socket takes lines again before the bound is reached")
  func noLossUnderBound() {
    var box = DaemonOutbox(capacity: 1000)
    var received = 0
    for i in 0..<10_000 {
      #expect(box.enqueue("v\(i % 10)", now: Self.t0) == nil)
      if i % 100 == 99 {
        box.flush { bytes in
          received += bytes.filter { $0 == 0x0A }.count
          return bytes.count
        }
      }
    }
    #expect(received == 10_000)
    #expect(box.dropped == 0)
  }
}

@Test("the daemon's errors reach the bridge's log with the attempt id written as ID")
func daemonErrorsWithoutIds() {
  var bridge = core()
  let actions = bridge.daemonLine(
    #"{"type":"error","reason":"attempt 0123456789abcdef0123456789abcdef was already decided"}"#,
    now: .zero)
  #expect(actions == [.warn("the daemon says: attempt ID was already decided")])
  #expect(BridgeCore.withoutIDs("keypad door1 at 12") == "keypad door1 at 12")
}

@Suite("Bridge: telling a ClientID taken over")
struct TakeoverWatchTests {
  static let t0 = Instant.seconds(50)

  @Test("MQTT 5 session taken over: said at once, and once for the whole run of takeovers")
  func sessionTakenOver() {
    var watch = TakeoverWatch()
    watch.connected(at: Self.t0)
    let first = watch.lost(at: Self.t0 + .seconds(60), sessionTakenOver: true)
    watch.connected(at: Self.t0 + .seconds(61))
    let second = watch.lost(at: Self.t0 + .seconds(62), sessionTakenOver: true)
    #expect(first && !second)
  }

  @Test("without a reason: the third connection in a row lost within 5 s of connecting is said")
  func quickLosses() {
    var watch = TakeoverWatch()
    var now = Self.t0
    var said: [Bool] = []
    for _ in 0..<4 {
      watch.connected(at: now)
      now = now + .seconds(1)
      said.append(watch.lost(at: now, sessionTakenOver: false))
      now = now + .seconds(1)
    }
    #expect(said == [false, false, true, false])
  }

  @Test("a connection that lasted starts the count again, and a later run is said again")
  func lastingConnectionResets() {
    var watch = TakeoverWatch()
    var now = Self.t0
    func quick() -> Bool {
      watch.connected(at: now)
      now = now + .seconds(1)
      return watch.lost(at: now, sessionTakenOver: false)
    }
    let run = [quick(), quick(), quick()]
    watch.connected(at: now)
    now = now + .seconds(600)
    let lasted = watch.lost(at: now, sessionTakenOver: false)
    let again = [quick(), quick(), quick()]
    #expect(run == [false, false, true])
    #expect(!lasted)
    #expect(again == [false, false, true])
  }
}
