import Glibc
import PinpadControlCore
import PinpadCore
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// `Controller`, the shell `serve` and its fleet controller share around the core, on
/// real files in a temporary folder (a codes file, the lockout file, the SQLite access
/// log) with real crypt(3): the effects are carried out, no process is started.
@Suite struct ControllerShellTests {
  static let aliceLine: String = {
    let hash = "2468".withCString { PasswordHasher().makeHash(code: $0)! }
    return "alice:\(hash)\n"
  }()

  static func codes(_ dir: TempDir, _ text: String) -> String {
    let path = dir.write("codes", text)
    chmod(path, 0o600)
    return path
  }

  static func controller(_ dir: TempDir, codes path: String) throws -> Controller {
    var rules = LockoutConfig()
    rules.maxFailures = 2
    var codes = WatchedCodesFile(path: path)
    _ = codes.reloadIfChanged()
    return try Controller.open(
      codes: codes, verifier: CodeVerifier(key: nil, workers: 1), directory: dir.file("state"),
      lockoutFile: "lockout", rules: rules, globalBound: .standard, keepDays: 30, say: { _ in })
  }

  /// Answers the code message `json` as `serve` does; the line's bytes afterwards.
  static func answer(_ controller: Controller, _ json: String, keypad: String = "door")
    -> (Decision, [UInt8])
  {
    var line = Array(json.utf8)
    let decision = line.withUnsafeMutableBufferPointer { buffer in
      guard case .success(let code) = CodeLine.decode(payload: UnsafeBufferPointer(buffer)) else {
        return Decision.deny(.unavailable)
      }
      return controller.answer(Attempt(code, in: buffer, keypad: keypad, place: keypad))
    }
    return (decision, line)
  }

  @Test func aCodeIsAnsweredFromTheFileRecordedAndZeroedInTheLine() throws {
    let dir = TempDir()
    let controller = try Self.controller(dir, codes: Self.codes(dir, Self.aliceLine))
    let (decision, line) = Self.answer(
      controller, #"{"type":"code","id":"a1","keypad":"door","code":"2468","card":"0041"}"#)
    #expect(decision == .deny(.unknown), "alice has no card")
    #expect(String(decoding: line, as: UTF8.self).contains(#""code":"\#0\#0\#0\#0""#))
    #expect(!String(decoding: line, as: UTF8.self).contains("0041"))
    let (grant, _) = Self.answer(controller, #"{"type":"code","id":"a2","code":"2468"}"#)
    #expect(grant == .grant("alice"))
    var rows: [AccessLog.Record] = []
    try AccessLog(directory: dir.file("state")).query(AccessLog.Filter()) { rows.append($0) }
    #expect(rows.map(\.attempt) == ["a1", "a2"])
    #expect(rows.map(\.granted) == [false, true])
  }

  @Test func aLockoutIsSavedAndANewControllerStartsLocked() throws {
    let dir = TempDir()
    let path = Self.codes(dir, Self.aliceLine)
    let first = try Self.controller(dir, codes: path)
    for n in 0..<2 { _ = Self.answer(first, #"{"id":"w\#(n)","code":"1111"}"#) }
    #expect(dir.read("state/lockout").contains("door"), "\(dir.read("state/lockout"))")
    let restarted = try Self.controller(dir, codes: path)
    #expect(Self.answer(restarted, #"{"id":"r","code":"2468"}"#).0 == .deny(.locked))
    #expect(Self.answer(restarted, #"{"id":"s","code":"2468"}"#, keypad: "side").0.granted)
  }

  @Test func aChangedCodesFileIsReadAgainBeforeTheNextCode() throws {
    let dir = TempDir()
    let path = Self.codes(dir, Self.aliceLine)
    let controller = try Self.controller(dir, codes: path)
    #expect(Self.answer(controller, #"{"id":"1","code":"2468"}"#).0.granted)
    _ = Self.codes(dir, "# alice revoked\n")
    #expect(Self.answer(controller, #"{"id":"2","code":"2468"}"#).0 == .deny(.unknown))
  }

  @Test("uses= is counted per NAME: two lines of one name share one count")
  func usesAreCountedPerName() throws {
    let dir = TempDir()
    func line(_ pin: String, _ uses: Int) -> String {
      let hash = pin.withCString { PasswordHasher().makeHash(code: $0)! }
      return "guest:\(hash):uses=\(uses)\n"
    }
    let controller = try Self.controller(
      dir, codes: Self.codes(dir, line("1357", 1) + line("2468", 2)))
    #expect(Self.answer(controller, #"{"id":"1","code":"2468"}"#).0 == .grant("guest", uses: 2))
    // The other line of the same name: its one use is already spent by the name.
    #expect(
      Self.answer(controller, #"{"id":"2","code":"1357"}"#).0 == .deny(.usedUp, person: "guest"))
    #expect(Self.answer(controller, #"{"id":"3","code":"2468"}"#).0 == .grant("guest", uses: 2))
    #expect(
      Self.answer(controller, #"{"id":"4","code":"2468"}"#).0 == .deny(.usedUp, person: "guest"))
    #expect(try controller.accessLog.spent("guest") == 2)
  }

  @Test("an attempt decided before is found by its id, device and keypad; others are not")
  func anEarlierDecisionIsFoundByItsAttempt() throws {
    let dir = TempDir()
    let controller = try Self.controller(dir, codes: Self.codes(dir, Self.aliceLine))
    #expect(Self.answer(controller, #"{"id":"g1","code":"2468"}"#).0.granted)
    #expect(Self.answer(controller, #"{"id":"d1","code":"1111"}"#).0 == .deny(.unknown))
    #expect(controller.earlierDecision(Attempt(id: "g1", keypad: "door")) == .grant("alice"))
    #expect(controller.earlierDecision(Attempt(id: "d1", keypad: "door")) == .deny(.unknown))
    #expect(controller.earlierDecision(Attempt(id: "g1", keypad: "side")) == nil)
    #expect(controller.earlierDecision(Attempt(id: "g1", device: "d", keypad: "door")) == nil)
    #expect(controller.earlierDecision(Attempt(id: "g2", keypad: "door")) == nil)
  }
}
