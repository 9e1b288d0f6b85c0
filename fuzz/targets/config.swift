// Fuzz target: the configuration parser (SPEC §2) with drop-ins and [MQTT].
//
// The input is the main file and up to 3 drop-ins, separated by NUL bytes. A file the
// parser accepts must render to text that parses to the same configuration; a refusal
// names a file that was given and a line that exists in it, in one line.
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let parts = bytes(data, size).split(
    separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
  let sources = parts.enumerated().map { index, part in
    ConfigSource(
      path: index == 0 ? "pinpadd.conf" : "conf.d/\(index).conf",
      text: String(decoding: part, as: UTF8.self))
  }
  let config: Configuration
  do { config = try ConfigParser.parse(sources) } catch {
    let source = sources.first(where: { $0.path == error.path })
    let lines = source.map {
      $0.text.split(
        omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }
      )
      .count
    }
    require(source != nil || error.path == "(defaults)", "error names \(error.path)")
    require(error.line >= 0 && error.line <= (lines ?? 0), "error line \(error.line)")
    require(!error.message.utf8.contains(0x0A), "error message spans lines")
    require(isOneLine(error.description), "error description spans lines")
    return 0
  }
  // [MQTT] is checked by whoever uses it; it must refuse or accept, never trap.
  if config.mqtt.isPresent { _ = try? config.mqtt.validated(hostName: "fuzz-host") }

  let rendered = config.render()
  let again: Configuration
  do {
    again = try ConfigParser.parse([ConfigSource(path: "rendered.conf", text: rendered)])
  } catch {
    fatalError("the rendered configuration is refused: \(error)\n\(rendered)")
  }
  // Where each [MQTT] key was set is not part of the rendered text.
  var expected = config
  expected.mqtt.places = again.mqtt.places
  expected.mqtt.section = again.mqtt.section
  // render() writes every [MQTT] key, defaults included.
  for key in MQTTConfig.keys where expected.mqtt.isPresent {
    expected.mqtt.values[key] = config.mqtt.value(key)
  }
  require(again == expected, "render/parse round trip differs:\n\(rendered)")
  require(again.render() == rendered, "render is not stable")
  return 0
}
