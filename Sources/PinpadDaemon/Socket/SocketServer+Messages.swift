import PinpadCore
import PinpadSystem

/// The daemon's messages to its clients (docs/protocol.md, "Socket"), encoded as they go
/// out: no line is built while no client is connected.
extension SocketServer {
  /// Queues `message` for every client.
  func broadcast(_ message: OutgoingMessage) {
    guard count > 0 else { return }
    lines.withLine(message) { broadcast($0) }
  }

  /// Queues `message` for the client numbered `serial`, if it is still connected.
  func reply(_ message: OutgoingMessage, toSerial serial: Int) {
    if let client = client(serial: serial) { reply(message, to: client) }
  }

  func reply(_ message: OutgoingMessage, to client: SocketClient) {
    lines.withLine(message) { send($0, to: client) }
  }

  /// Writes one `code` line to every client; returns how many took it.
  func sendCode(id: String, keypad: String, digits: SecretDigits, card: SecretDigits?) -> Int {
    guard count > 0 else { return 0 }
    // Room for the longest line (every character of a name escaped as \uXXXX), so the
    // buffer never reallocates and leaves a copy of the digits behind. It is kept
    // (locked once, zeroed after each line) and replaced only for longer names. 192: the
    // fixed members, a code and a card of 32 digits each.
    let room = 192 + 6 * (id.utf8.count + keypad.utf8.count + UTCTimestamp.length)
    if codeLine.capacity < room {
      codeLine = [UInt8](repeating: 0, count: room)
      codeLine.withUnsafeMutableBytes { SecretDigits.lockPages?($0.baseAddress!, $0.count) }
    }
    codeLine.removeAll(keepingCapacity: true)
    DaemonMessage.appendCode(
      id: id, keypad: keypad, digits: digits, card: card,
      wallNanoseconds: Clock.wallNanoseconds(), to: &codeLine)
    return broadcastSecret(&codeLine, id: id)  // zeroes it
  }
}
