import PinpadCore

/// The controller's requests, written: the lines `ClientRequest.parse` reads in the
/// daemon (docs/protocol.md, "Socket: verdict", "Socket: status request", "Socket:
/// open"). Members in the order the document shows; no digit of a code is in any of
/// them.
extension ClientRequest {
  /// The line without its newline.
  ///
  /// A verdict's `message` is written as given (the daemon cleans it where it arrives;
  /// the bridge cleans and cuts it before, `BridgeCore.verdictLine`), `duress` only when
  /// true, and `reason` whenever given (the daemon drops it from a grant).
  public var line: String {
    switch self {
    case .status:
      return ClientRequest.statusLine
    case .open(let door):
      return JSONValue.object([("type", .string("open")), ("door", .string(door))]).serialized
    case .verdict:
      return JSONValue.object([("type", .string("verdict"))] + verdictMembers).serialized
    }
  }

  /// A verdict as an MQTT payload: the line without `type` (docs/protocol.md, "MQTT:
  /// verdicts", "Fleet: topics"); nil for the other requests.
  public var verdictPayload: String? {
    guard case .verdict = self else { return nil }
    return JSONValue.object(verdictMembers).serialized
  }

  private var verdictMembers: [(String, JSONValue)] {
    guard case .verdict(let id, let granted, let message, let duress, let reason) = self else {
      return []
    }
    var members: [(String, JSONValue)] = [
      ("id", .string(id)), ("result", .string(granted ? "granted" : "denied")),
    ]
    if let message { members.append(("message", .string(message))) }
    if duress { members.append(("duress", .bool(true))) }
    if let reason { members.append(("reason", .string(reason))) }
    return members
  }

  /// `{"type":"status"}`.
  public static let statusLine = #"{"type":"status"}"#
}
