import Foundation
import PinpadTestSupport
import Testing

/// Card readers and duress (pinpadd(8), CARD READERS; docs/protocol.md, "Socket: alarm")
/// through the real daemon: a keypad and a card reader as two inputs (two recordings; the
/// reader's by its recorded device name, as `CardReader=` names a device), a real socket
/// client. What needs no process (card_read, card alone, a PIN before the card, the
/// duress alarm) is in `CardReaderTests`, on the `DaemonHarness`.
@Suite struct CardReaderEndToEndTests {
  static let card = "7305918264"
  static let readerName = "ACME HID card reader"

  /// A daemon with keypad `door` in `mode`: the keypad types `pin` after `pinDelay`, the
  /// reader types `card` and Enter after `cardDelay`, 10 ms a key as a reader does. The
  /// two inputs have their own timers: the delays keep them apart on a loaded machine.
  /// Keypad `door` with the reader named `readerName` in `mode`: keypad keys 15 ms apart
  /// are a burst, refused; the reader's 10 ms are not (its keys are not entry keys).
  static func config(mode: String) -> String {
    """
    [Keypad door]
    CardReader=name:ACME?HID?card*
    CardMode=\(mode)
    [Entry]
    BurstIntervalSec=0.015
    Bursts=reject
    """
  }

  static func daemon(
    mode: String, pin: String, pinDelay: Double = 1.5, cardDelay: Double = 0.3
  ) throws -> RunningDaemon {
    let dir = TempDir()
    let reader = dir.write(
      "reader.txt",
      E2E.recording(card + "\n", firstGap: cardDelay, gap: 0.01, keypad: true, name: readerName))
    return try RunningDaemon(
      config: config(mode: mode),
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
      #expect(!shows(fragment, in: log), "the log holds \(fragment) of the card")
    }
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
