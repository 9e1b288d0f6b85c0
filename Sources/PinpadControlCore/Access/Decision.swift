import PinpadCore

/// Who may open, as `DecisionCore` reads them: the lines of the codes file
/// (docs/protocol.md, "Codes file"), with the key of their tags. A door's replica of
/// those lines stands in for the file the same way; it only says that it cannot spend
/// uses (`spendsUses`).
public struct People: Sendable {
  public var entries: [CodesFile.Entry]
  /// The key of the `tag=`/`cardtag=` options (`CodeTagKey`), nil: every line is checked.
  public var key: CodeTagKey?
  /// Whether a grant of a `uses=N` line may be given: only the one log that counts the
  /// uses may spend them; elsewhere such a line is denied `unavailable`.
  public var spendsUses: Bool

  public init(entries: [CodesFile.Entry], key: CodeTagKey? = nil, spendsUses: Bool = true) {
    self.entries = entries
    self.key = key
    self.spendsUses = spendsUses
  }
}

/// One code message to decide: where it comes from and what was presented. `code` and
/// `card` point into the caller's buffer (the received line); `DecisionCore.decide`
/// zeroes both before it returns, whatever it decides.
public struct Attempt {
  /// The attempt's id, cleaned for the log (`UntrustedText`).
  public var id: String
  /// The fleet device (the topic's DEVICE), nil for a local keypad.
  public var device: String?
  public var keypad: String
  /// What the lockout counts by: the keypad, or the code's topic without `/code`.
  public var place: String
  public var code: UnsafeMutableBufferPointer<UInt8>?
  public var card: UnsafeMutableBufferPointer<UInt8>?

  public init(
    id: String, device: String? = nil, keypad: String, place: String? = nil,
    code: UnsafeMutableBufferPointer<UInt8>? = nil, card: UnsafeMutableBufferPointer<UInt8>? = nil
  ) {
    self.id = id
    self.device = device
    self.keypad = keypad
    self.place = place ?? keypad
    self.code = code
    self.card = card
  }

  /// The attempt of a decoded code message: its `code` and `card` as the places they
  /// hold in `line`, the line `code` was decoded from (`DaemonLine`,
  /// `CodeLine.decode(payload:)`). The id and keypad are cleaned for the log
  /// (`UntrustedText`); `device` and `place` are the caller's (a fleet's topic).
  public init(
    _ code: CodeLine, in line: UnsafeMutableBufferPointer<UInt8>, device: String? = nil,
    keypad: String? = nil, place: String? = nil
  ) {
    func secret(_ range: Range<Int>?) -> UnsafeMutableBufferPointer<UInt8>? {
      guard let range, range.upperBound <= line.count else { return nil }
      return UnsafeMutableBufferPointer(rebasing: line[range])
    }
    let keypad = keypad ?? UntrustedText.sanitized(code.keypad, maxBytes: 64)
    self.init(
      id: Attempt.shownID(code.id), device: device,
      keypad: keypad, place: place, code: secret(code.code), card: secret(code.card))
  }

  /// An attempt id as logs and the access log keep it, wherever it came from: cleaned
  /// of control and format characters and cut to `DaemonLine.maxIDBytes` (the one rule
  /// for `serve`, the fleet and a deciding door).
  public static func shownID(_ id: String) -> String {
    UntrustedText.sanitized(id, maxBytes: DaemonLine.maxIDBytes)
  }

  /// What `doors=` names: the keypad, or DEVICE/KEYPAD in a fleet.
  public var door: String { device.map { "\($0)/\(keypad)" } ?? keypad }
}

/// A moment on both clocks: the wall clock for the rules and the log (ms since the
/// epoch), the monotonic one for the lockout.
public struct Moment: Equatable, Sendable {
  public var wallMs: Int64
  public var mono: Instant

  public init(wallMs: Int64, mono: Instant) { (self.wallMs, self.mono) = (wallMs, mono) }

  /// Whole seconds since the epoch (rounded down, also before 1970).
  public var epochSeconds: Int64 { wallMs >= 0 ? wallMs / 1000 : (wallMs - 999) / 1000 }
}

/// What was decided for one attempt (docs/protocol.md, "Socket: denial reasons").
public struct Decision: Equatable, Sendable {
  public var granted: Bool
  /// Why it was denied; nil for a grant.
  public var reason: DenialReason?
  /// The matched line's name (a grant, or a denial of a line that matched: expired...).
  public var person: String?
  /// The matched line is a `duress` line: the verdict carries `"duress":true` and the
  /// daemon raises its alarm, for a grant and for a denial by the line's rules alike
  /// (docs/protocol.md, "Codes file: options").
  public var duress: Bool
  /// A grant's `uses=N`: one use is spent when it is recorded.
  public var uses: Int?

  public static func grant(_ person: String, duress: Bool = false, uses: Int? = nil) -> Decision {
    Decision(granted: true, reason: nil, person: person, duress: duress, uses: uses)
  }

  public static func deny(_ reason: DenialReason, person: String? = nil, duress: Bool = false)
    -> Decision
  {
    Decision(granted: false, reason: reason, person: person, duress: duress, uses: nil)
  }

  /// The verdict to send for attempt `id` (docs/protocol.md, "Socket: verdict", "Fleet:
  /// topics"): `"duress":true` for a duress line's decision, `"reason"` only with a denial.
  /// Written by `ClientRequest.line` (the socket) or `verdictPayload` (MQTT).
  public func verdict(id: String) -> ClientRequest {
    .verdict(
      id: id, granted: granted, message: nil, duress: duress,
      reason: granted ? nil : reason?.rawValue)
  }

  /// What the controller logs for it: the verdict with the person's name, and for a
  /// duress line a warning first. Never the code or card. `id` and `place` are cleaned
  /// by the caller (`UntrustedText`).
  public func logLines(id: String, place: String) -> [LogLine] {
    guard granted, let name = person else {
      let who = person.map { "; " + $0 } ?? ""
      let why = reason.map { " (\($0.rawValue)\(who))" } ?? ""
      let denied = LogLine.info("attempt \(id) on \(place): denied\(why)")
      guard duress, let name = person else { return [denied] }
      return [
        .warning(
          "DURESS: \(name) on \(place) (attempt \(id)); the door stayed shut"
            + " (\(reason?.rawValue ?? "denied"))"),
        denied,
      ]
    }
    if duress {
      return [
        .warning("DURESS: \(name) on \(place) (attempt \(id)); the door was opened"),
        .info("attempt \(id) on \(place): granted (\(name), duress)"),
      ]
    }
    return [.info("attempt \(id) on \(place): granted (\(name))")]
  }
}
