import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem

/// A door deciding codes itself (`[MQTT] Decide=local`; docs/protocol.md, "Replica"):
/// the replica it holds (`DoorReplica`, kept as `replica` in the state directory), the
/// same decision core as the site (`DecisionCore.run`, with `CodeVerifier`'s crypt(3)
/// checks and a `LockoutKeeper`), and its log (`DoorLog`).
final class DoorDecider {
  static let replicaFile = "replica"
  private(set) var replica: DoorReplica
  let log: DoorLog
  let replicaPath: String
  private let key: Ed25519PublicKey
  private var core: DecisionCore
  private let lockout: LockoutKeeper
  private let say: (LogLine) -> Void
  /// Whether the last decision could not be logged (said once until it works again).
  private var logOutage = Outage()
  private var lockedLimit = LockedDenialLimit()

  /// Loads the site's key, makes the state directory (0700), opens the log and takes the
  /// replica kept there (checked again). Errors are one line for the caller (exit 78 for
  /// the key, 69 for the directory).
  init(
    settings: MQTTSettings, stateDirectory: String, lockoutRules: LockoutConfig,
    say: @escaping (LogLine) -> Void
  ) throws(ControlError) {
    do { key = try Ed25519PublicKey(path: settings.siteKey) } catch {
      throw ControlError("SiteKey=\(error.description)", exitCode: .config)
    }
    self.say = say
    let device = SiteTopics.deviceName(settings.topic)
    let maxAge: Duration? =
      settings.maxReplicaAgeSeconds == 0 ? nil : .seconds(settings.maxReplicaAgeSeconds)
    replica = DoorReplica(device: device, maxAge: maxAge) { CodeTagKey(key: $0) }
    lockout = try LockoutKeeper(
      directory: stateDirectory, file: "lockout", rules: lockoutRules, log: say)
    do {
      log = try DoorLog(directory: stateDirectory, device: device) {
        FileSystem.randomBytes(16)
      }
    } catch {
      throw ControlError("\(error.description) (--state-dir DIR)")
    }
    replicaPath = stateDirectory + "/" + Self.replicaFile
    let verifier = CodeVerifier(key: nil)
    core = DecisionCore(
      lockout: lockout.restored, zone: .system, clock: Controller.now,
      firstMatch: { verifier.firstMatch($0, entries: $1, code: $2, card: $3) },
      zero: { explicitZero($0, $1) })
    restoreKept()
  }

  private func verify(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
    key.verify(signature, of: message)
  }

  /// The replica kept in the state directory, its age from the file's time.
  private func restoreKept() {
    guard FileSystem.exists(replicaPath) else { return }
    do {
      let bytes = try FileSystem.read(replicaPath, limit: Replica.maxBytes + 1)
      let status = try FileSystem.status(replicaPath)
      let wallNow = Clock.wallNanoseconds()
      let written =
        Int64(status.modified.seconds) * 1_000_000_000
        + Int64(status.modified.nanoseconds)
      let intake = replica.restore(
        bytes, ago: .nanoseconds(max(0, wallNow - written)), now: Clock.monotonic(),
        verify: verify)
      if case .refused(let refusal) = intake {
        say(
          .warning(
            "\(replicaPath): refused \(refusal); no code is granted until the site sends one"))
      } else {
        say(.info("deciding from the kept replica, generation \(replica.generation)"))
      }
    } catch {
      say(.warning("\(error); no code is granted until the site sends a replica"))
    }
  }

  /// A replica from the broker: true when it was taken (and kept on disk). A refusal is
  /// one log line that names no hash.
  func offer(_ bytes: [UInt8]) -> Bool {
    switch replica.offer(bytes, now: Clock.monotonic(), verify: verify) {
    case .same: return false
    case .refused(let refusal):
      say(.warning("refused \(refusal); the replica held stays"))
      return false
    case .taken:
      do { try FileSystem.writeAtomically(replicaPath, bytes, mode: 0o600) } catch {
        say(.warning("\(error); the replica is used but not kept"))
      }
      say(
        .info(
          "took the replica of generation \(replica.generation) (\(replica.held?.replica.people ?? 0) lines)"
        ))
      return true
    }
  }

  /// What became of a code.
  enum Outcome {
    /// The verdict line for the daemon (its log entry is in the door's log, sent from
    /// there).
    case answered(verdict: String)
    /// A `uses=` line's code: it goes to the site (which spends the use).
    case toSite
  }

  /// A code from the daemon: its `code` line, decoded from `line`.
  struct Request {
    var code: CodeLine
    var line: UnsafeMutableBufferPointer<UInt8>
  }

  /// Decides `request.code` (the digits in `request.line` are zeroed). `siteReachable`:
  /// whether the site can take a `uses=` line's code now (connected to the broker and
  /// the site online); then `send` publishes the line to it before the digits are zeroed.
  func decide(
    _ request: Request, siteReachable: Bool, send: (UnsafeMutableBufferPointer<UInt8>) -> Bool
  ) -> Outcome {
    let (code, line) = (request.code, request.line)
    let keypad = MQTTTopic.level(forKeypad: code.keypad)
    let attempt = Attempt(code, in: line, device: replica.device, keypad: keypad)
    let now = Controller.now()
    guard let people = replica.people, !replica.isStale(now: now.mono) else {
      code.zeroSecrets(in: line)
      let reason: DenialReason = replica.held == nil ? .unavailable : .stale
      return answer(code.id, .deny(reason), atMs: now.wallMs, keypad: keypad)
    }
    // A `uses=` line's code may have to go to the site after the core has zeroed the
    // line's digits: a copy, zeroed below, only while the site can take it.
    let spendsAtSite = siteReachable && people.entries.contains { $0.rules.uses != nil }
    let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: spendsAtSite ? line.count : 0)
    if spendsAtSite { _ = copy.initialize(fromContentsOf: line) }
    defer {
      if let base = copy.baseAddress { explicitZero(base, copy.count) }
      copy.deallocate()
    }
    let decision = core.run(
      attempt, people: people,
      divert: { decision in
        guard spendsAtSite, !decision.granted, decision.reason == .unavailable,
          let person = decision.person,
          people.entries.contains(where: { $0.name == person && $0.rules.uses != nil })
        else { return false }
        return send(copy)
      },
      perform: { effect in
        switch effect {
        case .record(let record):
          return logged(record.decision, atMs: record.at, keypad: keypad)
        case .saveLockout(let states): lockout.save(states)
        case .say(let line): say(line)
        }
        return nil
      })
    guard let decision else {
      say(.info("attempt \(attempt.id) on keypad \(keypad): a uses= line; sent to the site"))
      return .toSite
    }
    return answered(attempt.id, code.id, decision, keypad: keypad)
  }

  private func answer(_ id: String, _ decision: Decision, atMs: Int64, keypad: String) -> Outcome {
    let failed = logged(decision, atMs: atMs, keypad: keypad) == .failed
    let final = failed && decision.granted ? Decision.deny(.unavailable) : decision
    let shown = Attempt.shownID(id)
    return answered(shown, id, final, keypad: keypad)
  }

  /// The verdict for attempt `id` (`shown`: cleaned for the log), its lines said as
  /// `serve` says them.
  private func answered(
    _ shown: String, _ id: String, _ decision: Decision, keypad: String
  ) -> Outcome {
    for line in decision.logLines(id: shown, place: "keypad \(keypad)") { say(line) }
    return .answered(verdict: decision.verdict(id: id).line)
  }

  /// Commits `decision` to the door's log, as `DecisionRecorder` does the site's: a flood
  /// of `locked` denials only up to `LockedDenialLimit` (the others are answered, not
  /// logged); `.failed` when it could not be written.
  private func logged(_ decision: Decision, atMs: Int64, keypad: String) -> DecisionCore.Recorded {
    if decision.reason == .locked, !decision.granted {
      let (record, held) = lockedLimit.admit(at: atMs)
      guard record else { return .kept }
      if held > 0 { say(LockedDenialLimit.heldLine(held)) }
    }
    do {
      _ = try log.append(atMs: atMs, keypad: keypad, decision: decision)
      if logOutage.worked() { say(.info("\(log.database.path): decisions are logged again")) }
      return .kept
    } catch {
      if logOutage.failed() {
        say(.error("\(error); every code is denied (reason unavailable) until it can be logged"))
      }
      return .failed
    }
  }

}
