import Foundation
import Testing

/// Card readers and duress (pinpadd(8), CARD READERS; docs/protocol.md, "Socket: alarm")
/// on the real daemon in this process (`DaemonHarness`): a card reader's keys reach
/// keypad `door` as the reader's device would deliver them, the PIN comes from the
/// keypad, a client on the real socket sees the rest. That the reader is matched by its
/// device name (`CardReader=`) is `CardReaderEndToEndTests.cardThenPin`.
@Suite struct CardReaderTests {
  static let card = CardReaderEndToEndTests.card

  /// Keypad `door` in `mode`, with the same burst rule as the end-to-end tests (keypad
  /// keys 15 ms apart are a burst; the reader's 10 ms are not).
  static func harness(mode: String) throws -> DaemonHarness {
    try DaemonHarness(config: CardReaderEndToEndTests.config(mode: mode))
  }

  @Test("card+pin: every client sees entry card_read, without a digit, before the PIN")
  func cardReadEvent() throws {
    let harness = try Self.harness(mode: "card+pin")
    let client = try harness.connect()
    harness.swipe(Self.card, keypad: "door")
    let read = try #require(
      try client.waitFor("entry", timeout: 5) { $0["event"] as? String == "card_read" })
    #expect(read.message.string("keypad") == "door")
    #expect(read.message.int("length") == 0)
    #expect(Set(read.message.keys) == ["type", "keypad", "event", "length"])
    #expect(!read.before.contains { $0["type"] as? String == "code" })
    // The PIN 2.2 s later, as in the end-to-end recording.
    harness.advance(2.2)
    harness.type("1234\n", keypad: "door", gap: 0.08)
    let code = try #require(try client.waitFor("code", timeout: 5))
    #expect(code.message.string("card") == Self.card)
    #expect(code.message.string("code") == "1234")
    #expect(
      !code.before.contains { $0["event"] as? String == "card_read" }, "one card_read a card")
    #expect(harness.stop() == 0)
  }

  @Test("card: card_read comes before the code the card is submitted as")
  func cardReadBeforeCardAlone() throws {
    let harness = try Self.harness(mode: "card")
    let client = try harness.connect()
    harness.swipe(Self.card, keypad: "door")
    let code = try #require(try client.waitFor("code", timeout: 5))
    let events = code.before.compactMap { $0["event"] as? String }
    #expect(events.last == "card_read", "\(events)")
    #expect(harness.stop() == 0)
  }

  @Test("card+pin: the PIN typed before any card changes nothing; no code goes out")
  func pinBeforeCard() throws {
    let harness = try Self.harness(mode: "card+pin")
    let client = try harness.connect()
    harness.type("5678\n", keypad: "door", gap: 0.08)
    // The PIN is refused: no entry began, nothing was submitted.
    #expect(try client.waitFor("code", timeout: 0.05) == nil)
    #expect(!harness.log.contains("card read"))
    #expect(!harness.log.contains("submitted"))
    // Then the card, which now waits for a PIN: still no code, however long.
    harness.advance(1.1)
    harness.swipe(Self.card, keypad: "door")
    #expect(harness.log.contains("card read, waiting for the PIN"))
    harness.advance(0.5)
    #expect(try client.waitFor("code", timeout: 0.05) == nil)
    #expect(!harness.log.contains("submitted"))
    #expect(harness.stop() == 0)
  }

  @Test("card: a card alone is submitted at once, without a code member")
  func cardAlone() throws {
    let harness = try Self.harness(mode: "card")
    let client = try harness.connect()
    harness.swipe(Self.card, keypad: "door")
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    #expect(code.string("card") == Self.card)
    #expect(code["code"] == nil)
    #expect(code.string("keypad") == "door")
    #expect(harness.stop() == 0)
  }

  @Test("duress: the verdict, then the alarm, reach every client; bad duress types refused")
  func duressAlarm() throws {
    let harness = try DaemonHarness()
    let controller = try harness.connect()
    let watcher = try harness.connect()
    harness.type("2468\n")
    let code = try #require(try controller.waitFor("code", timeout: 5)).message
    let id = try #require(code.string("id"))
    controller.send(json: ["type": "verdict", "id": id, "result": "granted", "duress": "yes"])
    let error = try #require(try controller.waitFor("error", timeout: 3)).message
    #expect(error.string("reason") == "verdict \"duress\" must be true or false")
    controller.send(json: ["type": "verdict", "id": id, "result": "granted", "duress": true])
    for client in [controller, watcher] {
      let alarm = try #require(try client.waitFor("alarm", timeout: 3))
      #expect(alarm.message.string("reason") == "duress")
      #expect(alarm.message.string("keypad") == "default")
      #expect(alarm.message.string("id") == id)
      // The verdict came first, and was an ordinary grant.
      let verdict = alarm.before.first { $0.string("type") == "verdict" }
      #expect(verdict?.string("result") == "granted")
      #expect(verdict?["duress"] == nil)
    }
    #expect(harness.stop() == 0)
    #expect(harness.log.contains("duress alarm"))
  }
}
