// Fuzz target: the lines a client sends the daemon (SPEC §4.3).
//
// The input is split into lines at LF as the socket server does; each line of at most
// ProtocolVersion.maxLineBytes bytes (a CR before the LF dropped) goes through
// ClientRequest.parse. JSON the parser accepts must print and parse back to the same
// value; an accepted verdict, written out again, must parse to the same request; the
// one-pass reading of plain verdicts must give what the full reading gives.
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSocketLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  for var line in bytes(data, size).split(separator: 0x0A, omittingEmptySubsequences: false) {
    if line.count > ProtocolVersion.maxLineBytes { continue }  // the server disconnects
    if line.last == 0x0D { line = line.dropLast() }
    checkJSON(line)
    let request = ClientRequest.parse(line)
    require(request == ClientRequest.parse(line, quick: false), "the one-pass reading differs")
    switch request {
    case .failure(let error):
      require(!error.reason.isEmpty, "empty error reason")
      // The reply is one line: its reason must not break it.
      require(
        !DaemonMessage.error(error.reason).utf8.dropLast().contains(0x0A), "reply spans lines")
    case .success(.status):
      break
    case .success(.verdict(let id, let granted, let message, let duress, let reason)):
      require(!granted || reason == nil, "a grant carries no reason")
      var members: [(String, JSONValue)] = [
        ("type", .string("verdict")), ("id", .string(id)),
        ("result", .string(granted ? "granted" : "denied")),
      ]
      if let message { members.append(("message", .string(message))) }
      if duress { members.append(("duress", .bool(true))) }
      if let reason { members.append(("reason", .string(reason))) }
      let written = JSONValue.object(members).serialized
      let again = ClientRequest.parse(Array(written.utf8))
      require(
        again
          == .success(
            .verdict(id: id, granted: granted, message: message, duress: duress, reason: reason)),
        "verdict round trip: \(written)")
    case .success(.open(let door)):
      // An accepted door name, written out again, is the same request.
      let written = JSONValue.object([("type", .string("open")), ("door", .string(door))])
        .serialized
      require(
        ClientRequest.parse(Array(written.utf8)) == .success(.open(door: door)),
        "open round trip: \(written)")
    }
  }
  return 0
}

/// parse → serialized → parse gives the same value, and printing is stable.
func checkJSON(_ line: ArraySlice<UInt8>) {
  guard let value = try? JSONValue.parse(line) else { return }
  let printed = value.serialized
  let again: JSONValue
  do { again = try JSONValue.parse(printed) } catch {
    fatalError("printed JSON does not parse: \(error): \(printed)")
  }
  require(again == value, "JSON round trip differs: \(printed)")
  require(again.serialized == printed, "JSON printing is not stable: \(printed)")
}
