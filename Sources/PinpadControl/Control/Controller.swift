import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// What `serve` and its fleet controller share around `DecisionCore`: the codes file on
/// disk (`WatchedCodesFile`, re-read when it changed, checked before each code), the
/// crypt(3) checks (`CodeVerifier`), the lockout file (`LockoutKeeper`) and the access
/// log (`DecisionRecorder`). `answer` runs the core and carries out its effects, so the
/// decision is recorded before it is returned, so before its verdict is sent.
final class Controller {
  private(set) var codes: WatchedCodesFile
  let verifier: CodeVerifier
  private var core: DecisionCore
  private let lockout: LockoutKeeper
  private let recorder: DecisionRecorder
  /// Where the lockout's and the log's lines go.
  private let say: (LogLine) -> Void

  init(
    codes: WatchedCodesFile, verifier: CodeVerifier, lockout: LockoutKeeper,
    recorder: DecisionRecorder, say: @escaping (LogLine) -> Void
  ) {
    self.codes = codes
    self.verifier = verifier
    self.lockout = lockout
    self.recorder = recorder
    self.say = say
    core = DecisionCore(
      lockout: lockout.restored, zone: .system, clock: Controller.now,
      firstMatch: { verifier.firstMatch($0, entries: $1, code: $2, card: $3) },
      zero: { explicitZero($0, $1) })
  }

  /// The controller of `serve` (`lockoutFile` "lockout") or of its fleet
  /// ("fleet-lockout") in `directory`: the lockout file first (it makes the directory),
  /// then the access log.
  static func open(
    codes: WatchedCodesFile, verifier: CodeVerifier, directory: String, lockoutFile: String,
    rules: LockoutConfig, globalBound: ControllerLockout.GlobalBound, keepDays: Int,
    say: @escaping (LogLine) -> Void
  ) throws -> Controller {
    let lockout = try LockoutKeeper(
      directory: directory, file: lockoutFile, rules: rules, global: globalBound, log: say)
    let recorder = try openRecorder(directory, keepDays: keepDays, say: say)
    return Controller(
      codes: codes, verifier: verifier, lockout: lockout, recorder: recorder, say: say)
  }

  static func now() -> Moment {
    Moment(wallMs: Clock.wallNanoseconds() / 1_000_000, mono: Clock.monotonic())
  }

  /// Counts the changes of the codes file seen (`reloadCodes`).
  private(set) var codesChanges: UInt64 = 0

  /// Reads the codes file again when it changed; whether it did.
  @discardableResult
  func reloadCodes() -> Bool {
    guard let problems = codes.reloadIfChanged() else { return false }
    for problem in problems { say(.warning(problem)) }
    Self.adoptKeyBesideCodes(codes.path, verifier, say: say)
    Self.warnAboutUntaggedLines(codes, verifier, say: say)
    codesChanges &+= 1
    return true
  }

  /// The access log decisions are recorded in.
  var accessLog: AccessLog { recorder.log }

  /// The decision for `attempt` (its code and card are zeroed), recorded.
  func answer(_ attempt: Attempt) -> Decision {
    reloadCodes()
    let people = People(entries: codes.entries, key: verifier.key)
    return core.run(attempt, people: people, perform: perform) ?? .deny(.unavailable)
  }

  /// The decision recorded before for `attempt`'s id at its device and keypad (a
  /// repeated code message), nil when there is none or the log cannot say.
  func earlierDecision(_ attempt: Attempt) -> Decision? {
    guard !attempt.id.isEmpty,
      let record = try? accessLog.decided(
        attempt: attempt.id, device: attempt.device, keypad: attempt.keypad)
    else { return nil }
    guard record.granted else {
      let reason = record.reason.flatMap(DenialReason.init(rawValue:)) ?? .unknown
      return .deny(reason, person: record.person)
    }
    return .grant(record.person ?? "", duress: record.duress)
  }

  private func perform(_ effect: DecisionCore.Effect) -> DecisionCore.Recorded? {
    switch effect {
    case .record(let record): return recorder.record(record)
    case .saveLockout(let states): lockout.save(states)
    case .say(let line): say(line)
    }
    return nil
  }

  /// The access log in the state directory (which `LockoutKeeper` made); one that
  /// cannot be opened is a resource unavailable (exit 69).
  static func openRecorder(
    _ directory: String, keepDays: Int, say: @escaping (LogLine) -> Void
  ) throws -> DecisionRecorder {
    do {
      return DecisionRecorder(
        log: try AccessLog(directory: directory), keepDays: keepDays, say: say)
    } catch {
      throw ControlError("\(error.description) (--state-dir DIR)")
    }
  }

  /// Without a key, starts using the one the first `hash` made beside the codes file
  /// after `serve` started (nothing to set up beyond adding people: pinpadctl(1), FILES).
  static func adoptKeyBesideCodes(
    _ path: String, _ verifier: CodeVerifier, say: (LogLine) -> Void
  ) {
    let beside = TagKeyFile.besideCodes(path)
    guard verifier.key == nil, FileSystem.exists(beside) else { return }
    do {
      verifier.adoptKey(try TagKeyFile.load(beside))
      say(.info("using the key \(beside) for the tags"))
    } catch {
      say(.warning("\(error.description); the tags are not used"))
    }
  }

  /// Lines a code alone is crypt(3)-checked against one by one; past this many the
  /// verdict takes long enough (about 16 ms a line, spread over the cores) to say so.
  static let slowLineWarning = 64

  static func warnAboutUntaggedLines(
    _ codes: WatchedCodesFile, _ verifier: CodeVerifier, say: (LogLine) -> Void
  ) {
    let slow = CodesLookup.untaggedPinLines(in: codes.entries, key: verifier.key)
    guard slow >= slowLineWarning else { return }
    let how =
      verifier.key == nil
      ? "no --key is given" : "\(slow) lines have no tag= made with this key"
    say(
      .warning(
        "\(codes.path): \(how); a code alone is checked against"
          + " \(slow) hashes one by one (slow; see pinpadctl(1), SCALE)"))
  }
}
