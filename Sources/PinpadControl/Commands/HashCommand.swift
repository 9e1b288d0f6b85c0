import Glibc
import PinpadControlCore
import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadctl hash NAME [--card] [--duress] [--key FILE] [--config FILE]` and the rules
/// of the line: reads a PIN (and with `--card` first a card number; an empty PIN then
/// makes a card-only line), from the terminal without echo, twice each, or one line each
/// from standard input when it is not a terminal (`SecretLineReader`), and prints the
/// codes-file line. Warns when the PIN's length or digits do not fit the daemon's
/// `[Entry]` settings.
enum HashCommand {
  static let usage =
    "hash NAME [--card] [--duress] [--codes FILE] [--key FILE] [--config FILE] [--from DATE]"
    + " [--until DATE] [--hours WINDOWS] [--uses N] [--doors NAMES] [--disabled]"

  struct Options: Equatable {
    var name: String? = nil
    var withCard = false
    var duress = false
    var key: String? = nil
    var codes: String? = nil
    var config: String? = nil
    var rules = AccessRules()

    /// The words after `hash`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
      var options = Options()
      var words = Arguments(arguments)
      while let word = words.next() {
        switch word.name {
        case "--from", "--until", "--hours", "--uses", "--doors":
          let key = String(word.name.dropFirst(2))
          let value = try words.value(of: word)
          if let problem = options.rules.apply(key, Array(value.utf8)[...]), !problem.isEmpty {
            throw UsageError("hash: \(problem)")
          }
        case "--disabled":
          try words.flag(word)
          _ = options.rules.apply("disabled", nil)
        case "--codes": options.codes = try words.value(of: word)
        case "--card":
          try words.flag(word)
          options.withCard = true
        case "--duress":
          try words.flag(word)
          options.duress = true
        case "--key": options.key = try words.value(of: word)
        case "--config": options.config = try words.value(of: word)
        default:
          guard options.name == nil, !word.text.hasPrefix("-") else {
            throw UsageError("\(usage) (unexpected \(word.text))")
          }
          options.name = word.text
        }
      }
      return options
    }

    /// The person's name (`code` when none is given).
    var who: String { name ?? "code" }

    /// A name the codes file cannot hold: one line, exit 64 (no usage text).
    func validate() throws(BareUsageError) {
      if let problem = CodesFile.nameProblem(Array(who.utf8)) {
        throw BareUsageError("pinpadctl hash: \(problem)")
      }
      guard !who.contains(where: { $0 == ":" || $0.isWhitespace }) else {
        throw BareUsageError("pinpadctl hash: the name must not hold a colon or a space")
      }
    }
  }

  /// Reads the secrets and prints the line for validated `options`.
  static func run(_ options: Options) -> Int32 {
    let configPath = options.config
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
    guard let key = loadKey(options) else { return ExitCode.config.rawValue }
    let withCard = options.withCard
    let terminal = FileDescriptor.standardInput.isTerminal
    let cardReader = SecretLineReader.typedInput()
    defer { cardReader.wipe() }
    var card: SecretLineReader.TypedLine? = nil
    if withCard {
      guard let typed = read(cardReader, "Card: ", terminal: terminal) else { return 1 }
      guard typed.isValidCard else {
        ControlMain.printError(
          "pinpadctl hash: a card number is 1 to \(CodesLookup.maxCardLength) letters or digits")
        return 1
      }
      card = typed
    }
    let codeReader = SecretLineReader.typedInput()
    defer { codeReader.wipe() }
    guard
      let code = read(
        codeReader, withCard ? "PIN (empty: card only): " : "PIN: ", terminal: terminal)
    else { return 1 }
    let cardOnly = withCard && code.bytes.count == 0
    if !cardOnly {
      guard code.isValidCode else {
        ControlMain.printError("pinpadctl hash: a PIN is 1 to \(SecretDigits.capacity) digits")
        return 1
      }
      if let entry,
        let warning = lengthWarning(
          count: code.bytes.count, entry: entry, allowed: code.digitsUsed)
      {
        ControlMain.printError("pinpadctl hash: warning: \(warning)")
      }
    }
    let hasher = PasswordHasher()
    // crypt(3)'s NUL-terminated copy, as serve's (`CodeVerifier`).
    let cString = SecretCString(capacity: SecretLineReader.typedCapacity)
    var line = CodesFile.Entry(name: options.who, pinHash: nil, duress: options.duress)
    line.rules = options.rules
    /// The hash of `input` and its tag; nil (after saying why) when libcrypt fails.
    func hashed(_ input: SecretLineReader.TypedLine, _ kind: CodeTag.Kind, digits: Int)
      -> ([UInt8], CodeTag?)?
    {
      cString.set(input.bytes)
      guard let text = hasher.makeHash(code: cString.pointer) else {
        ControlMain.printError("pinpadctl hash: libcrypt could not make a yescrypt hash")
        return nil
      }
      let hash = Array(text.utf8)
      return (hash, key?.tag(kind, hash: hash, secret: input.bytes, digits: digits))
    }
    if !cardOnly {
      guard let pin = hashed(code, .pin, digits: CodeTag.pinDigits) else { return 1 }
      (line.pinHash, line.pinTag) = (pin.0, pin.1)
    }
    if let card {
      guard let made = hashed(card, .card, digits: CodeTag.cardDigits) else { return 1 }
      (line.cardHash, line.cardTag) = (made.0, made.1)
    }
    ControlMain.printLine(line.text)
    return 0
  }

  /// The key of the tags (`--key FILE`, made when missing, or the one beside the codes
  /// file); `.some(nil)`: no tags; nil (after saying why): a key file that cannot be used.
  private static func loadKey(_ options: Options) -> CodeTagKey?? {
    if let keyPath = options.key {
      do {
        if FileSystem.exists(keyPath) { return .some(try TagKeyFile.load(keyPath)) }
        let made = try TagKeyFile.create(keyPath)
        ControlMain.printError("pinpadctl hash: created the key file \(keyPath) (mode 0600)")
        return .some(made)
      } catch {
        ControlMain.printError("pinpadctl hash: \(error.description)")
        return nil
      }
    }
    // The key beside the codes file, made on first use like the file (pinpadctl(1),
    // FILES: the packaged controller is fast with no set-up beyond adding people).
    let codes = options.codes ?? "/etc/pinpadd/codes"
    switch TagKeyFile.besideCodesFile(codes) {
    case .key(let found, let created):
      if created {
        ControlMain.printError(
          "pinpadctl hash: created the key file \(TagKeyFile.besideCodes(codes))"
            + " (owner and mode of \(codes)); serve uses it")
      }
      return .some(found)
    case .none(let why):
      if options.codes != nil || why != nil {
        ControlMain.printError(
          "pinpadctl hash: warning: \(why ?? "\(codes) does not exist"); the line has no"
            + " tag, so serve checks it slowly")
      }
      return .some(nil)
    }
  }

  /// Reads one secret with `reader`: on a terminal twice without echo (they must agree),
  /// else one line of standard input. Nil (after saying why) when cancelled.
  private static func read(_ reader: SecretLineReader, _ prompt: String, terminal: Bool)
    -> SecretLineReader.TypedLine?
  {
    guard terminal else { return reader.readTypedLine() }
    let againReader = SecretLineReader.typedInput()
    defer { againReader.wipe() }
    guard let typed = reader.readFromTerminal(prompt: prompt),
      let again = againReader.readFromTerminal(prompt: "Again: ")
    else {
      ControlMain.printError("pinpadctl hash: cancelled")
      return nil
    }
    guard typed.bytes.count == again.bytes.count,
      constantTimeEqual(typed.bytes.baseAddress!, typed.bytes.count, again.bytes)
    else {
      ControlMain.printError("pinpadctl hash: the two entries differ")
      return nil
    }
    return typed
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

/// What `hash` takes of a typed line.
extension SecretLineReader.TypedLine {
  var isValidCard: Bool { !tooLong && CodesLookup.isCard(bytes) }

  var isValidCode: Bool {
    !tooLong && (1...SecretDigits.capacity).contains(bytes.count)
      && bytes.allSatisfy { (0x30...0x39).contains($0) }
  }

  /// The digit values (0...9) the line uses.
  var digitsUsed: Set<UInt8> { Set(bytes.map { $0 &- 0x30 }) }
}
