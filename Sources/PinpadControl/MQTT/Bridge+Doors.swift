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
    let topic = UntrustedText.escapingControls(message.topic)
    if let problem = BridgeCore.refusalBeforeReading(
      retained: message.retained, size: message.payload.count)
    {
      log.warning("\(topic): \(problem.reason); ignored")
      return true
    }
    switch core.doorCommandLine(topic: message.topic, payload: Array(message.payload)) {
    case .failure(let problem):
      log.warning("\(topic): \(problem.reason); ignored")
    case .success(let line):
      guard daemon.state.isReady else {
        log.warning("\(topic): not connected to the daemon; command dropped")
        return true
      }
      sendToDaemon(line)
    }
    return true
  }
}
