// Fuzz target: the MQTT bridge's pure parts (SPEC §8.1).
//
// The whole input is a verdict payload from the broker: an accepted one becomes a line
// the daemon parses as that same verdict. Then each line of the input is a line from
// the daemon, fed to one BridgeCore in order (a `code` line takes the shell's path):
// every topic it publishes is under the bridge's topic with no wildcard or empty
// level, and every retained state is a JSON object.
import PinpadControlCore
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMQTT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = bytes(data, size)
  switch BridgeCore.verdictLine(payload: input) {
  case .failure(let error):
    require(!error.reason.isEmpty, "empty reason")
  case .success(let line):
    guard
      case .success(.verdict(let id, let granted, _, let duress, let reason)) =
        ClientRequest.parse(Array(line.utf8))
    else { fatalError("the daemon refuses the verdict line \(line)") }
    let payload = try! JSONValue.parse(input)
    require(payload["id"]?.stringValue == id, "id changed")
    require(payload["result"]?.stringValue == (granted ? "granted" : "denied"), "result changed")
    require(duress == (payload["duress"]?.boolValue ?? false), "duress changed")
    // A denial's reason reaches the daemon as sent; a grant has none.
    require(reason == (granted ? nil : payload["reason"]?.stringValue), "reason changed")
  }

  var bridge = BridgeCore(
    topic: "site/door", discovery: true, discoveryPrefix: "homeassistant", maxFailures: 5,
    version: "fuzz", keypads: ["default", "front door"])
  var now = Instant(nanoseconds: 1_000_000_000)
  check(bridge.daemonConnected(), bridge)
  for line in input.split(separator: 0x0A) {
    let text = String(decoding: line, as: UTF8.self)
    if let value = try? JSONValue.parse(text), value["type"]?.stringValue == "code" {
      let topic = bridge.codeTopic(
        id: value["id"]?.stringValue ?? "", keypad: value["keypad"]?.stringValue ?? "")
      checkTopic(topic, bridge)
      continue
    }
    check(bridge.daemonLine(text, now: now), bridge)
    now = now + .seconds(1)
    check(bridge.tick(now: now), bridge)
  }
  check(bridge.daemonLost(), bridge)
  return 0
}

func check(_ actions: [BridgeCore.Action], _ bridge: BridgeCore) {
  for action in actions {
    guard case .publish(let topic, let payload, let retain) = action else { continue }
    checkTopic(topic, bridge)
    if retain, topic.hasSuffix("/state") {
      guard case .object? = try? JSONValue.parse(payload) else {
        fatalError("retained state is not a JSON object: \(payload)")
      }
    }
  }
}

/// Byte by byte, as a broker reads a topic (a `/` with a combining mark after it is one
/// Swift Character, and still a level separator on the wire).
func checkTopic(_ topic: String, _ bridge: BridgeCore) {
  let bytes = Array(topic.utf8)
  require(
    bytes.starts(with: (bridge.topic + "/").utf8)
      || bytes.starts(with: (bridge.discoveryPrefix + "/").utf8),
    "topic \(topic) outside the bridge's")
  require(
    !bytes.contains(UInt8(ascii: "+")) && !bytes.contains(UInt8(ascii: "#")),
    "wildcard in topic \(topic)")
  require(
    !bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
      .contains(where: \.isEmpty), "empty level in topic \(topic)")
  require(!bytes.contains(0), "NUL in topic")
}
