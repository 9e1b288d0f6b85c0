import Foundation
import Testing

/// SPEC §9.1 and §9.2 through the real daemon: a keypad and a card reader as two inputs
/// (two recordings; the reader's by its recorded device name, as `CardReader=` names a
/// device), a real socket client.
@Suite struct CardReaderEndToEndTests {
  static let card = "7305918264"
  static let readerName = "ACME HID card reader"

  /// A daemon with keypad `door` in `mode`: the keypad types `pin` after `pinDelay`, the
  /// reader types `card` and Enter after `cardDelay`, 10 ms a key as a reader does. The
  /// two inputs have their own timers: the delays keep them apart on a loaded machine.
  static func daemon(
    mode: String, pin: String, pinDelay: Double = 1.5, cardDelay: Double = 0.3
  ) throws -> RunningDaemon {
    let dir = TempDir()
    let reader = dir.write(
      "reader.txt",
      E2E.recording(card + "\n", firstGap: cardDelay, gap: 0.01, keypad: true, name: readerName))
    return try RunningDaemon(
      config: """
        [Keypad door]
        CardReader=name:ACME?HID?card*
        CardMode=\(mode)
        [Entry]
        BurstIntervalSec=0.015
        Bursts=reject
        """,
      recording: E2E.recording(pin, firstGap: pinDelay, gap: 0.08), dir: dir,
      extraArguments: ["--input", "replay:" + reader])
  }

  @Test("card+pin: a card on the reader then a PIN on the keypad give ONE code with both")
  func cardThenPin() throws {
    let daemon = try Self.daemon(mode: "card+pin", pin: "1234\n")
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    #expect(code.string("code") == "1234")
    #expect(code.string("card") == Self.card)
    #expect(code.string("keypad") == "door")
    client.send(json: ["type": "verdict", "id": code.string("id")!, "result": "granted"])
    #expect(try client.waitFor("verdict", timeout: 3) != nil)
    #expect(try client.waitFor("code", timeout: 1) == nil, "a second code message")
    #expect(daemon.stop() == 0)
    let log = daemon.log
    #expect(log.contains("card read, waiting for the PIN"))
    #expect(log.contains("card and code submitted as attempt"))
    // Debug level: no run of the card's digits in any line.
    let chars = Array(Self.card)
    for start in 0...(chars.count - 6) {
      let fragment = String(chars[start..<(start + 6)])
      #expect(!log.contains(fragment), "the log holds \(fragment) of the card")
    }
  }

  @Test("card+pin: every client sees entry card_read, without a digit, before the PIN")
  func cardReadEvent() throws {
    let daemon = try Self.daemon(mode: "card+pin", pin: "1234\n", pinDelay: 2.5)
    let client = try daemon.connect()
    let read = try #require(
      try client.waitFor("entry", timeout: 5) { $0["event"] as? String == "card_read" })
    #expect(read.message.string("keypad") == "door")
    #expect(read.message.int("length") == 0)
    #expect(Set(read.message.keys) == ["type", "keypad", "event", "length"])
    #expect(!read.before.contains { $0["type"] as? String == "code" })
    let code = try #require(try client.waitFor("code", timeout: 5))
    #expect(code.message.string("card") == Self.card)
    #expect(
      !code.before.contains { $0["event"] as? String == "card_read" }, "one card_read a card")
    #expect(daemon.stop() == 0)
  }

  @Test("card: card_read comes before the code the card is submitted as")
  func cardReadBeforeCardAlone() throws {
    let daemon = try Self.daemon(mode: "card", pin: "")
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 5))
    let events = code.before.compactMap { $0["event"] as? String }
    #expect(events.last == "card_read", "\(events)")
    #expect(daemon.stop() == 0)
  }

  @Test("card+pin: the PIN typed before any card changes nothing; no code goes out")
  func pinBeforeCard() throws {
    let daemon = try Self.daemon(mode: "card+pin", pin: "5678\n", pinDelay: 0.01, cardDelay: 1.5)
    let client = try daemon.connect()
    // The PIN came first (refused), then the card, which now waits for a PIN.
    #expect(E2E.waitUntil(timeout: 5) { daemon.log.contains("card read") })
    #expect(try client.waitFor("code", timeout: 0.5) == nil)
    #expect(daemon.stop() == 0)
    #expect(daemon.log.contains("card read, waiting for the PIN"))
  }

  @Test("card: a card alone is submitted at once, without a code member")
  func cardAlone() throws {
    let daemon = try Self.daemon(mode: "card", pin: "")
    let client = try daemon.connect()
    let code = try #require(try client.waitFor("code", timeout: 5)).message
    #expect(code.string("card") == Self.card)
    #expect(code["code"] == nil)
    #expect(daemon.stop() == 0)
  }

  @Test("duress: the verdict, then the alarm, reach every client; bad duress types refused")
  func duressAlarm() throws {
    let daemon = try RunningDaemon(recording: E2E.recording("2468\n", firstGap: 0.3))
    let controller = try daemon.connect()
    let watcher = try daemon.connect()
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
    #expect(daemon.stop() == 0)
    #expect(daemon.log.contains("duress alarm"))
  }

  @Test("the README's card+PIN example passes --check-config as pasted")
  func readmeExample() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "## Card and PIN").dropFirst().first)
    let block = section.components(separatedBy: "\n").drop { !$0.hasPrefix("    [Keypad") }
      .prefix { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
    #expect(block.count == 5)
    let dir = TempDir()
    let path = dir.write("50-card.conf", block.joined(separator: "\n") + "\n")
    let result = try runProgram(E2E.pinpadd, ["--check-config", "--config", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("CardReader=name:*Card?Reader*\nCardMode=card+pin\n"))
    #expect(result.stdout.contains("PinAfterCardSec=15\n"))
  }
}
