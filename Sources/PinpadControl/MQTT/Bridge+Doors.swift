import PinpadControlCore
import PinpadCore

/// The bridge's doors (docs/protocol.md, "MQTT: door topics"): TOPIC/door/NAME/command
/// takes `open`.
extension Bridge {
  func subscribeDoorCommands(_ client: MQTTClient) {
    let rc = client.subscribeSkippingRetained(core.doorCommandFilter)
    if rc != 0 {
      log.warning("cannot subscribe to \(core.doorCommandFilter): \(MQTTClient.describe(rc))")
    }
  }

  /// A message on a door's command topic: forwarded as an `open` request, unless it is
  /// retained (a stored "open" would open the door at every reconnect) or too large.
  /// False for other topics.
  func doorCommand(_ message: MQTTClient.Incoming) -> Bool {
    guard MQTTTopic.matches(message.topic, filter: core.doorCommandFilter) else { return false }
    forward(message, "command", core.doorCommandLine)
    return true
  }
}
