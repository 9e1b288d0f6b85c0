import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl serve` and `pinpadctl hash`: the reference controller (pinpadctl(1);
/// docs/protocol.md, "Codes file").
///
/// `serve` answers every `code` message with `granted` when its code and/or card match a
/// line of the codes file (`CodesLookup`), else `denied`; a duress line's grant carries
/// `"duress":true` and is logged as a warning with the person's name. It re-reads the
/// file when it changes (checked before each code), and when the daemon goes away
/// (restart, upgrade) it reconnects, retrying every second, so a door keeps working
/// across daemon restarts; only a `forbidden` answer, which retrying cannot fix, ends
/// it. The secrets are checked in place in one fixed buffer and zeroed; no code or card
/// number is ever printed.
enum ControllerService {
  static let retryInterval: Duration = .seconds(1)

  /// Unblocks every signal. A client started from a thread that blocks signals (a
  /// test runner, a thread pool) inherits that mask and would otherwise ignore SIGTERM.
  static func unblockSignals() {
    var none = sigset_t()
    sigemptyset(&none)
    _ = sigprocmask(SIG_SETMASK, &none, nil)
  }

  static let serveUsage =
    "serve --codes FILE [--key FILE] [--state-dir DIR] [--keep-days N] [--config FILE]"
    + " [--mqtt [--topics FILTER]]"

  static func main(socketPath: String, arguments: [String]) throws -> Int32 {
    var words = Arguments(arguments)
    var path: String? = nil
    var keyPath: String? = nil
    var mqtt = false
    var filter: String? = nil
    var configPath: String? = nil
    var stateDirectory: String? = nil
    var keepDays = DecisionRecorder.defaultKeepDays
    while let word = words.next() {
      switch word.name {
      case "--codes": path = try words.value(of: word)
      case "--key": keyPath = try words.value(of: word)
      case "--mqtt":
        try words.flag(word)
        mqtt = true
      case "--topics": filter = try words.value(of: word)
      case "--config": configPath = try words.value(of: word)
      case "--state-dir": stateDirectory = try words.value(of: word)
      case "--keep-days": keepDays = try keepDaysValue(try words.value(of: word))
      default:
        throw UsageError("\(serveUsage) (unexpected \(word.text))")
      }
    }
    if !mqtt, filter != nil { throw UsageError("serve: --topics goes with --mqtt") }
    guard let path, !path.isEmpty else { throw UsageError("serve needs --codes FILE") }
    if stateDirectory?.isEmpty == true { throw UsageError("serve: --state-dir needs a directory") }
    // The key beside the codes file (`hash` makes it, pinpadctl(1), SCALE) is used when
    // present.
    let besideKey = TagKeyFile.besideCodes(path)
    if keyPath == nil, FileSystem.exists(besideKey) { keyPath = besideKey }
    var key: CodeTagKey? = nil
    if let keyPath {
      do { key = try TagKeyFile.load(keyPath) } catch {
        throw CodesFileRefused(description: error.description)
      }
    }
    var codes = WatchedCodesFile(path: path)
    let verifier = CodeVerifier(key: key)
    let problems = codes.reloadIfChanged() ?? []
    if let refusal = codes.refusal { throw CodesFileRefused(description: refusal) }
    for problem in problems { ControlMain.printError(problem) }
    guard FileSystem.exists(path) else {
      throw ControlError("\(path): cannot read the codes file")
    }
    if codes.entries.isEmpty {
      ControlMain.printError("pinpadctl serve: \(path) holds no usable line; every code is denied")
    }
    warnAboutUntaggedLines(codes, verifier)
    let directory = ControllerStateDirectory.resolve(stateDirectory)
    if mqtt {
      return try FleetController.run(
        codes: codes, verifier: verifier, filter: filter ?? FleetController.defaultFilter,
        configPath: configPath ?? "/etc/pinpadd/pinpadd.conf", configGiven: configPath != nil,
        stateDirectory: directory, keepDays: keepDays)
    }
    // [Lockout] of the daemon's configuration: the controller's lockout follows it.
    var rules = LockoutConfig()
    do {
      rules =
        try ConfigLoader.load(
          path: configPath ?? "/etc/pinpadd/pinpadd.conf", required: configPath != nil
        ).lockout
    } catch {
      ControlMain.printError(error.description)
      if configPath != nil { return ExitCode.config.rawValue }
    }
    let lockout = try LockoutKeeper(
      directory: directory, file: "lockout", rules: rules,
      log: { ControlMain.printError("pinpadctl serve: " + $0) })
    let recorder = try openRecorder(directory, keepDays: keepDays) {
      ControlMain.printError("pinpadctl serve: " + $0)
    }
    // One thread, one EventLoop: the daemon's connection while there is one, else the
    // timer that retries every second.
    let loop = try EventLoop()
    let retry = try Timer()
    var connection: OpenDescriptor? = nil
    var greeted = false
    var said = false
    var refusal: String? = nil
    func connect() {
      let open: OpenDescriptor
      do { open = OpenDescriptor(try UnixSocket.connect(path: socketPath)) } catch {
        if !said {
          ControlMain.printError(
            "pinpadctl serve: cannot connect to \(socketPath): \(error); retrying every second")
          said = true
        }
        retry.arm(at: Clock.monotonic() + retryInterval)
        return
      }
      said = false
      greeted = false
      connection = open
      let fd = open.descriptor
      let lines = SecretLineReader(fd: fd)
      do {
        try loop.watch(fd, .readable) { _ in
          let end = serveLines(
            lines, greeted: &greeted, codes: &codes, verifier: verifier, lockout: lockout,
            recorder: recorder, socketPath: socketPath)
          guard let end else { return }
          loop.unwatch(fd)
          open.close()
          connection = nil
          if case .refused(let why) = end {
            refusal = why
            loop.stop()
            return
          }
          ControlMain.printError("pinpadctl serve: disconnected from \(socketPath); reconnecting")
          retry.arm(at: Clock.monotonic() + retryInterval)
        }
      } catch {
        open.close()
        connection = nil
        ControlMain.printError("pinpadctl serve: epoll: \(error); retrying every second")
        retry.arm(at: Clock.monotonic() + retryInterval)
      }
    }
    try loop.watch(retry.fd, .readable) { _ in
      retry.acknowledge()
      if connection == nil { connect() }
    }
    connect()
    try loop.run()
    throw ControlError("\(socketPath): \(refusal ?? "refused")")
  }

  /// `pinpadctl log ...` (`LogCommand`): its options.
  static func logMain(arguments: [String]) throws -> Int32 {
    var words = Arguments(arguments)
    var options = LogCommand.Options()
    let now = Clock.wallNanoseconds() / 1_000_000
    func time(_ text: String) throws -> Int64 {
      do { return try LogCommand.time(text, now: now, zone: .system) } catch {
        throw UsageError("log: \(error)")
      }
    }
    while let word = words.next() {
      switch word.name {
      case "--since": options.filter.since = try time(try words.value(of: word))
      case "--until": options.filter.until = try time(try words.value(of: word))
      case "--person": options.filter.person = try words.value(of: word)
      case "--door": options.filter.door = try words.value(of: word)
      case "--json":
        try words.flag(word)
        options.json = true
      case "--keep-days": options.keepDays = try keepDaysValue(try words.value(of: word))
      case "--state-dir": options.stateDirectory = try words.value(of: word)
      default: throw UsageError("\(LogCommand.usage) (unexpected \(word.text))")
      }
    }
    return try LogCommand.run(options, now: now)
  }

  static func keepDaysValue(_ text: String) throws -> Int {
    guard let days = Int(text), (1...36500).contains(days) else {
      throw UsageError("--keep-days takes a number of days from 1 to 36500")
    }
    return days
  }

  /// The access log in the state directory (which `LockoutKeeper` made); one that
  /// cannot be opened is a resource unavailable (exit 69).
  static func openRecorder(
    _ directory: String, keepDays: Int, say: @escaping (String) -> Void
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
  static func adoptKeyBesideCodes(_ path: String, _ verifier: CodeVerifier) {
    let beside = TagKeyFile.besideCodes(path)
    guard verifier.key == nil, FileSystem.exists(beside) else { return }
    do {
      verifier.adoptKey(try TagKeyFile.load(beside))
      ControlMain.printError("pinpadctl serve: using the key \(beside) for the tags")
    } catch {
      ControlMain.printError("pinpadctl serve: \(error.description); the tags are not used")
    }
  }

  /// Lines a code alone is crypt(3)-checked against one by one; past this many the
  /// verdict takes long enough (about 16 ms a line, spread over the cores) to say so.
  static let slowLineWarning = 64

  static func warnAboutUntaggedLines(_ codes: WatchedCodesFile, _ verifier: CodeVerifier) {
    let slow = CodesLookup.untaggedPinLines(in: codes.entries, key: verifier.key)
    guard slow >= slowLineWarning else { return }
    let how =
      verifier.key == nil
      ? "no --key is given" : "\(slow) lines have no tag= made with this key"
    ControlMain.printError(
      "pinpadctl serve: warning: \(codes.path): \(how); a code alone is checked against"
        + " \(slow) hashes one by one (slow; see pinpadctl(1), SCALE)")
  }

  enum EndOfService {
    case lost
    case refused(String)
  }

  /// One connection's lines, once its descriptor is readable: one read, then every
  /// complete line (the greeting, then codes answered); nil while the connection lasts.
  static func serveLines(
    _ reader: SecretLineReader, greeted: inout Bool, codes: inout WatchedCodesFile,
    verifier: CodeVerifier, lockout: LockoutKeeper, recorder: DecisionRecorder,
    socketPath: String
  ) -> EndOfService? {
    do { try reader.fill() } catch {
      return .lost
    }
    while let line = reader.completeLine() {
      guard let fields = JSONFields(line) else { continue }
      let type = fields.text("type", in: line)
      if !greeted {
        if type == "error" {
          return .refused(fields.text("reason", in: line) ?? "refused")
        }
        greeted = true
        ControlMain.printError("pinpadctl serve: connected to \(socketPath)")
        continue
      }
      switch type {
      case "code":
        guard let id = fields.text("id", in: line) else {
          zeroSecrets(fields, line)
          continue
        }
        let keypad = UntrustedText.sanitized(fields.text("keypad", in: line) ?? "?", maxBytes: 64)
        let decision = decide(
          fields, line, codes: &codes, verifier: verifier, lockout: lockout, place: keypad,
          recorder: recorder, device: nil, keypad: keypad,
          attempt: UntrustedText.sanitized(id, maxBytes: 128))
        let answer = JSONValue.object(
          [("type", .string("verdict"))] + verdictMembers(id, decision))
        do { try reader.fd.writeAll(Array((answer.serialized + "\n").utf8)) } catch {
          return .lost
        }
        let shownId = UntrustedText.sanitized(id, maxBytes: 64)
        for text in logLines(id: shownId, place: "keypad \(keypad)", decision) {
          ControlMain.printError("pinpadctl serve: " + text)
        }
      case "error":
        ControlMain.printError(
          "pinpadctl serve: the daemon says: \(fields.text("reason", in: line) ?? "error")")
      default:
        continue
      }
    }
    return nil
  }

  /// What was decided for one code message: the line matched (nil: denied) and, for a
  /// denial, why (docs/protocol.md, "Socket: denial reasons").
  struct Decision: Equatable {
    var match: CodeVerifier.Match?
    var reason: String? = nil
    /// A denial's matched line (expired, outside hours...): the person, for the log.
    var person: String? = nil
    /// A grant's `uses=N`, spent when it is recorded.
    var uses: Int? = nil
  }

  /// The decision for a code message's `code` and/or `card` from `place` (a keypad, or
  /// DEVICE/KEYPAD): denied unchecked (`locked`) while the controller's lockout is in
  /// force, else the line they match, with the rules of the codes file (docs/protocol.md,
  /// "Codes file: options"; `AccessDecision`), and recorded (`DecisionRecorder`: a use
  /// spent, the log written) before it is returned, so before its verdict is sent.
  /// Re-reads the codes file first when it changed; zeroes both values in `line`.
  static func decide(
    _ fields: JSONFields, _ line: UnsafeBufferPointer<UInt8>, codes: inout WatchedCodesFile,
    verifier: CodeVerifier, lockout: LockoutKeeper, place: String, recorder: DecisionRecorder,
    device: String?, keypad: String, attempt: String
  ) -> Decision {
    let mutableLine = UnsafeMutableBufferPointer(mutating: line)
    let code = fields.range(of: "code").map {
      UnsafeMutableBufferPointer(rebasing: mutableLine[$0])
    }
    let card = fields.range(of: "card").map {
      UnsafeMutableBufferPointer(rebasing: mutableLine[$0])
    }
    if let problems = codes.reloadIfChanged() {
      for problem in problems { ControlMain.printError(problem) }
      adoptKeyBesideCodes(codes.path, verifier)
      warnAboutUntaggedLines(codes, verifier)
    }
    let at = recorder.nowMs()
    func settle(_ decision: Decision) -> Decision {
      recorder.settle(decision, at: at, device: device, keypad: keypad, attempt: attempt)
    }
    guard code != nil || card != nil else {
      return settle(Decision(match: nil, reason: DenialReason.unknown.rawValue))
    }
    if case .locked = lockout.admit(place) {
      zeroSecrets(fields, line)
      return settle(Decision(match: nil, reason: DenialReason.locked.rawValue))
    }
    let entries = codes.entries
    // What doors= names: the keypad, or DEVICE/KEYPAD in a fleet.
    let door = device.map { "\($0)/\(keypad)" } ?? keypad
    let epoch = at >= 0 ? at / 1000 : (at - 999) / 1000
    let zone = recorder.zone
    let match = verifier.check(code: code, card: card, entries: entries) {
      AccessDecision.ordered($0, entries: entries, at: epoch, zone: zone, place: door)
    }
    let decision: Decision
    switch AccessDecision.outcome(
      matched: match?.index, entries: entries, at: epoch, zone: zone, place: door)
    {
    case .grant(_, let uses): decision = Decision(match: match, uses: uses)
    case .deny(let reason, let index):
      decision = Decision(
        match: nil, reason: reason.rawValue, person: index.map { entries[$0].name })
    }
    let settled = settle(decision)
    lockout.record(place, granted: settled.match != nil)
    return settled
  }

  /// Zeroes the `code` and `card` values of a line that is not answered.
  static func zeroSecrets(_ fields: JSONFields, _ line: UnsafeBufferPointer<UInt8>) {
    let mutableLine = UnsafeMutableBufferPointer(mutating: line)
    for key in ["code", "card"] {
      if let range = fields.range(of: key), let base = mutableLine.baseAddress {
        explicitZero(base + range.lowerBound, range.count)
      }
    }
  }

  /// `"id"`, `"result"`, for a duress line `"duress":true`, and a denial's `"reason"`.
  static func verdictMembers(_ id: String, _ decision: Decision) -> [(String, JSONValue)] {
    let match = decision.match
    var members: [(String, JSONValue)] = [
      ("id", .string(id)), ("result", .string(match == nil ? "denied" : "granted")),
    ]
    if match?.duress == true { members.append(("duress", .bool(true))) }
    if match == nil, let reason = decision.reason { members.append(("reason", .string(reason))) }
    return members
  }

  /// What `serve` logs for one attempt: the verdict with the person's name, and for a
  /// duress line a warning first. Never the code or card. `id` and `place` are cleaned
  /// by the caller (`UntrustedText`).
  static func logLines(id: String, place: String, _ decision: Decision) -> [String] {
    guard let match = decision.match else {
      let who = decision.person.map { "; " + $0 } ?? ""
      let why = decision.reason.map { " (\($0)\(who))" } ?? ""
      return ["attempt \(id) on \(place): denied\(why)"]
    }
    if match.duress {
      return [
        "warning: DURESS: \(match.name) on \(place) (attempt \(id)); the door was opened",
        "attempt \(id) on \(place): granted (\(match.name), duress)",
      ]
    }
    return ["attempt \(id) on \(place): granted (\(match.name))"]
  }

  // MARK: hash

  static let hashUsage =
    "hash NAME [--card] [--duress] [--codes FILE] [--key FILE] [--config FILE] [--from DATE]"
    + " [--until DATE] [--hours WINDOWS] [--uses N] [--doors NAMES] [--disabled]"

  /// `pinpadctl hash NAME [--card] [--duress] [--key FILE] [--config FILE]`: reads a PIN
  /// (and with `--card` first a card number; an empty PIN then makes a card-only line),
  /// from the terminal without echo, twice each, or one line each from standard input
  /// when it is not a terminal, and prints the codes-file line. Warns when the PIN's
  /// length or digits do not fit the daemon's `[Entry]` settings.
  static func hashMain(arguments: [String]) throws -> Int32 {
    var words = Arguments(arguments)
    var name: String? = nil
    var withCard = false
    var duress = false
    var keyPath: String? = nil
    var codesPath: String? = nil
    var configPath: String? = nil
    var rules = AccessRules()
    while let word = words.next() {
      switch word.name {
      case "--from", "--until", "--hours", "--uses", "--doors":
        let key = String(word.name.dropFirst(2))
        let value = try words.value(of: word)
        if let problem = rules.apply(key, Array(value.utf8)[...]), !problem.isEmpty {
          throw UsageError("hash: \(problem)")
        }
      case "--disabled":
        try words.flag(word)
        _ = rules.apply("disabled", nil)
      case "--codes": codesPath = try words.value(of: word)
      case "--card":
        try words.flag(word)
        withCard = true
      case "--duress":
        try words.flag(word)
        duress = true
      case "--key": keyPath = try words.value(of: word)
      case "--config": configPath = try words.value(of: word)
      default:
        guard name == nil, !word.text.hasPrefix("-") else {
          throw UsageError("\(hashUsage) (unexpected \(word.text))")
        }
        name = word.text
      }
    }
    let who = name ?? "code"
    if let problem = CodesFile.nameProblem(Array(who.utf8)) {
      ControlMain.printError("pinpadctl hash: \(problem)")
      return ExitCode.usage.rawValue
    }
    guard !who.contains(where: { $0 == ":" || $0.isWhitespace }) else {
      ControlMain.printError("pinpadctl hash: the name must not hold a colon or a space")
      return ExitCode.usage.rawValue
    }
    // The lengths to warn about: a bad --config FILE is an error; a bad default one only
    // means the PIN's length is not checked.
    var entry: EntryConfig? = nil
    do {
      entry = try ConfigLoader.load(
        path: configPath ?? "/etc/pinpadd/pinpadd.conf", required: configPath != nil
      ).entry
    } catch {
      ControlMain.printError(error.description)
      guard configPath == nil else { return ExitCode.config.rawValue }
      ControlMain.printError("pinpadctl hash: warning: the PIN's length is not checked")
    }
    var key: CodeTagKey? = nil
    if let keyPath {
      do {
        if FileSystem.exists(keyPath) {
          key = try TagKeyFile.load(keyPath)
        } else {
          key = try TagKeyFile.create(keyPath)
          ControlMain.printError("pinpadctl hash: created the key file \(keyPath) (mode 0600)")
        }
      } catch {
        ControlMain.printError("pinpadctl hash: \(error.description)")
        return ExitCode.config.rawValue
      }
    } else {
      // The key beside the codes file, made on first use like the file (pinpadctl(1),
      // FILES: the packaged controller is fast with no set-up beyond adding people).
      let codes = codesPath ?? "/etc/pinpadd/codes"
      switch TagKeyFile.besideCodesFile(codes) {
      case .key(let found, let created):
        key = found
        if created {
          ControlMain.printError(
            "pinpadctl hash: created the key file \(TagKeyFile.besideCodes(codes))"
              + " (owner and mode of \(codes)); serve uses it")
        }
      case .none(let why):
        if codesPath != nil || why != nil {
          ControlMain.printError(
            "pinpadctl hash: warning: \(why ?? "\(codes) does not exist"); the line has no"
              + " tag, so serve checks it slowly")
        }
      }
    }
    let terminal = FileDescriptor.standardInput.isTerminal
    let card = SecretInput()
    defer { card.wipe() }
    if withCard {
      guard read(card, "Card: ", terminal: terminal) else { return 1 }
      guard card.isValidCard else {
        ControlMain.printError(
          "pinpadctl hash: a card number is 1 to \(CodesLookup.maxCardLength) letters or digits")
        return 1
      }
    }
    let code = SecretInput()
    defer { code.wipe() }
    guard read(code, withCard ? "PIN (empty: card only): " : "PIN: ", terminal: terminal) else {
      return 1
    }
    let cardOnly = withCard && code.count == 0
    if !cardOnly {
      guard code.isValidCode else {
        ControlMain.printError("pinpadctl hash: a PIN is 1 to \(SecretDigits.capacity) digits")
        return 1
      }
      if let entry,
        let warning = lengthWarning(count: code.count, entry: entry, allowed: code.digitsUsed)
      {
        ControlMain.printError("pinpadctl hash: warning: \(warning)")
      }
    }
    let hasher = PasswordHasher()
    var line = CodesFile.Entry(name: who, pinHash: nil, duress: duress)
    line.rules = rules
    if !cardOnly {
      guard let hash = hasher.makeHash(code: code.cString) else {
        ControlMain.printError("pinpadctl hash: libcrypt could not make a yescrypt hash")
        return 1
      }
      line.pinHash = Array(hash.utf8)
      line.pinTag = key?.tag(
        .pin, hash: line.pinHash!, secret: code.buffer, digits: CodeTag.pinDigits)
    }
    if withCard {
      guard let hash = hasher.makeHash(code: card.cString) else {
        ControlMain.printError("pinpadctl hash: libcrypt could not make a yescrypt hash")
        return 1
      }
      line.cardHash = Array(hash.utf8)
      line.cardTag = key?.tag(
        .card, hash: line.cardHash!, secret: card.buffer, digits: CodeTag.cardDigits)
    }
    ControlMain.printLine(line.text)
    return 0
  }

  /// Reads one secret into `input`: on a terminal twice without echo (they must agree),
  /// else one line of standard input. False (after saying why) when cancelled.
  private static func read(_ input: SecretInput, _ prompt: String, terminal: Bool) -> Bool {
    guard terminal else {
      input.readLine(from: .standardInput)
      return true
    }
    let again = SecretInput()
    defer { again.wipe() }
    guard input.readFromTerminal(prompt: prompt), again.readFromTerminal(prompt: "Again: ")
    else {
      ControlMain.printError("pinpadctl hash: cancelled")
      return false
    }
    guard input.count == again.count, constantTimeEqual(input.bytes, input.count, again.array())
    else {
      ControlMain.printError("pinpadctl hash: the two entries differ")
      return false
    }
    return true
  }

  /// Why a PIN of `count` digits (using the digits `allowed`) cannot be typed on the
  /// daemon's keypads, nil when it can. Names lengths and digits, never the PIN.
  static func lengthWarning(count: Int, entry: EntryConfig, allowed digits: Set<UInt8>) -> String? {
    if let length = entry.length, count != length {
      return "the PIN has \(count) digits but the keypads take exactly \(length) ([Entry] Length=)"
    }
    if entry.length == nil, count < entry.minLength {
      return "the PIN has \(count) digits, fewer than [Entry] MinLength=\(entry.minLength)"
    }
    if entry.length == nil, count > entry.maxLength {
      return "the PIN has \(count) digits, more than [Entry] MaxLength=\(entry.maxLength)"
    }
    let refused = digits.subtracting(entry.allowedDigits)
    if !refused.isEmpty {
      return "the PIN uses a digit that [Entry] AllowedDigits= leaves out"
    }
    return nil
  }
}

/// A code typed by a person, in one fixed NUL-terminated buffer that is zeroed by `wipe()`.
final class SecretInput {
  static let capacity = 64
  let bytes: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private var overflow = false

  init() {
    bytes = .allocate(capacity: SecretInput.capacity + 1)
    ProcessSetup.lockPages(bytes, SecretInput.capacity + 1)
    bytes.initialize(repeating: 0, count: SecretInput.capacity + 1)
  }
  deinit {
    wipe()
    bytes.deallocate()
  }

  func wipe() {
    explicitZero(bytes, SecretInput.capacity + 1)
    count = 0
  }

  var cString: UnsafePointer<CChar> {
    UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self)
  }

  /// A copy for comparing (the caller's array is short-lived; only used for equality).
  func array() -> [UInt8] { Array(UnsafeBufferPointer(start: bytes, count: count)) }

  var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: count) }

  /// The digit values (0...9) the input uses.
  var digitsUsed: Set<UInt8> { Set((0..<count).map { bytes[$0] &- 0x30 }) }

  var isValidCard: Bool { !overflow && CodesLookup.isCard(buffer) }

  var isValidCode: Bool {
    !overflow && (1...SecretDigits.capacity).contains(count)
      && (0..<count).allSatisfy { (0x30...0x39).contains(bytes[$0]) }
  }

  private func append(_ byte: UInt8) {
    guard count < SecretInput.capacity else {
      overflow = true
      return
    }
    bytes[count] = byte
    count += 1
  }

  /// One line (or all input up to EOF) from `fd`, byte by byte so nothing past it is read.
  func readLine(from fd: FileDescriptor) {
    var byte: UInt8 = 0
    while true {
      let n =
        (try? withUnsafeMutableBytes(of: &byte) { (b) throws(Errno) in try fd.read(into: b) }) ?? -1
      if n <= 0 || byte == 0x0A { break }
      if byte != 0x0D { append(byte) }
      // Endless input (/dev/zero) or a line too long: stop; the caller refuses it.
      if overflow { break }
    }
    byte = 0
  }

  /// Reads a line from the terminal on standard input with echo off (termios), handling
  /// Backspace and Ctrl-U itself; false when cancelled (Ctrl-C, Ctrl-D) or unreadable.
  /// The terminal's settings are restored on every path.
  func readFromTerminal(prompt: String) -> Bool {
    let fd = FileDescriptor.standardInput.rawValue
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else { return false }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
    withUnsafeMutableBytes(of: &quiet.c_cc) {
      $0[Int(VMIN)] = 1
      $0[Int(VTIME)] = 0
    }
    guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return false }
    defer {
      _ = tcsetattr(fd, TCSAFLUSH, &saved)
      ControlMain.printError("")
    }
    try? FileDescriptor.standardError.writeAll(Array(prompt.utf8))
    var byte: UInt8 = 0
    defer { byte = 0 }
    while true {
      let n =
        (try? withUnsafeMutableBytes(of: &byte) { (b) throws(Errno) in
          try FileDescriptor(rawValue: fd).read(into: b)
        }) ?? -1
      guard n == 1 else { return false }
      switch byte {
      case 0x0D, 0x0A: return true
      case 0x03, 0x04: return false  // Ctrl-C, Ctrl-D
      case 0x7F, 0x08:
        if count > 0 {
          count -= 1
          bytes[count] = 0
        }
      case 0x15:  // Ctrl-U
        wipe()
      default: append(byte)
      }
    }
  }
}

/// `serve` will not start on a codes file others may read or write: exit 78.
struct CodesFileRefused: Error, CustomStringConvertible {
  var description: String
}
