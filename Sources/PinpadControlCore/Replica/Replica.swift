import PinpadCore

/// A door's replica (docs/protocol.md, "Replica"): the codes-file lines that can open one
/// of a device's keypads, verbatim, for the device to decide codes itself, signed by the
/// site with Ed25519. Text, line by line:
///
///     pinpadd-replica 1
///     device DEVICE
///     generation N
///     made 2026-12-07T05:00:00.000Z
///     tag-key HEX            (optional: the codes file's tag key, 64 hex digits)
///     lines N
///     NAME:HASH[:OPTION,...]      (N codes-file lines)
///     signature HEX          (128 hex digits: Ed25519 over every byte before this line)
///
/// The format is canonical: a replica that parses encodes to the very bytes it came from,
/// so the bytes verified are the bytes used. The signature is checked by the caller's
/// function (pinpadctl's `Ed25519PublicKey`): this type does no cryptography.
public struct Replica: Equatable, Sendable {
  public static let version = 1
  /// Larger replicas are refused unread.
  public static let maxBytes = 16 << 20
  public static let signatureSize = 64
  public static let maxDeviceBytes = 256

  /// The device (its topic level) the replica is for.
  public var device: String
  /// Grows with every replica the site makes for this device, never goes back.
  public var generation: UInt64
  /// When the site made it (milliseconds since the epoch, its clock).
  public var madeMs: Int64
  /// The codes file's tag key (32 bytes; `CodeTagKey`), so the door narrows its checks as
  /// the site does; nil when the site has none.
  public var tagKey: [UInt8]?
  /// The codes-file lines, verbatim, without their line ends.
  public var lines: [[UInt8]]
  /// Ed25519 over `signedBytes`; empty until signed.
  public var signature: [UInt8]

  public init(
    device: String, generation: UInt64, madeMs: Int64, tagKey: [UInt8]? = nil,
    lines: [[UInt8]], signature: [UInt8] = []
  ) {
    self.device = device
    self.generation = generation
    self.madeMs = madeMs
    self.tagKey = tagKey
    self.lines = lines
    self.signature = signature
  }

  /// The bytes the signature covers: every line before `signature`.
  public var signedBytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(128 + lines.reduce(0) { $0 + $1.count + 1 })
    func line(_ text: String) { out += Array(text.utf8) + [0x0A] }
    line("pinpadd-replica \(Replica.version)")
    line("device \(device)")
    line("generation \(generation)")
    out += Array("made ".utf8) + UTCTime.text(ms: madeMs) + [0x0A]
    if let tagKey { line("tag-key " + Replica.hex(tagKey)) }
    line("lines \(lines.count)")
    for text in lines {
      out += text
      out.append(0x0A)
    }
    return out
  }

  /// The whole replica: `signedBytes` and the signature line.
  public func encoded() -> [UInt8] {
    signedBytes + Array("signature \(Replica.hex(signature))\n".utf8)
  }

  /// The people (lines) it holds.
  public var people: Int { lines.count }

  static let hexDigits = Array("0123456789abcdef".utf8)
  static func hex(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out.append(hexDigits[Int(byte >> 4)])
      out.append(hexDigits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }
  /// Lowercase hex only (the format is canonical).
  static func unhex(_ text: ArraySlice<UInt8>) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    func value(_ byte: UInt8) -> UInt8? {
      switch byte {
      case 0x30...0x39: return byte - 0x30
      case 0x61...0x66: return byte - 0x61 + 10
      default: return nil
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(text.count / 2)
    var i = text.startIndex
    while i < text.endIndex {
      guard let high = value(text[i]), let low = value(text[i + 1]) else { return nil }
      out.append(high << 4 | low)
      i += 2
    }
    return out
  }

  /// What is wrong with a device name, nil when it is one: 1 to 256 bytes of UTF-8, no
  /// control character, no `/`, `+` or `#` (it is one MQTT topic level).
  public static func deviceProblem(_ name: some Collection<UInt8>) -> String? {
    guard !name.isEmpty, name.count <= maxDeviceBytes else {
      return "the device is empty or too long"
    }
    guard String(validating: name, as: UTF8.self) != nil else { return "the device is not UTF-8" }
    if name.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x2F || $0 == 0x2B || $0 == 0x23 }) {
      return "the device holds a control character, /, + or #"
    }
    return nil
  }
}

extension Replica {
  /// Why a replica is refused whole (the door keeps the one it holds): one line for the
  /// log, never a hash or a code.
  public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(Int)
    case unknownVersion
    case badStructure(String)
    /// A line (1 is the replica's first codes-file line) that does not parse.
    case badLine(Int, String)
    case badSignature
    case otherDevice(String)
    case notNewer(held: UInt64, offered: UInt64)

    public var description: String {
      switch self {
      case .tooLarge(let size): return "a replica of \(size) bytes (over 16 MiB)"
      case .unknownVersion: return "a replica of an unknown version"
      case .badStructure(let what): return "a replica that is not one: \(what)"
      case .badLine(let n, let problem):
        return "a replica whose line \(n) does not parse: \(problem)"
      case .badSignature: return "a replica whose signature does not verify with SiteKey="
      case .otherDevice(let device):
        return "a replica for another device (\(UntrustedText.sanitized(device, maxBytes: 64)))"
      case .notNewer(let held, let offered):
        return "a replica of generation \(offered), not newer than the \(held) held"
      }
    }
  }

  /// A replica that parsed, with its lines read as a codes file (`entries[i]` is
  /// `replica.lines[i]`, its `line` is i + 1).
  public struct Parsed: Sendable {
    public var replica: Replica
    /// The lines' entries, for the decision core in place of a codes file's.
    public var entries: [CodesFile.Entry]
  }

  /// The replica in `bytes`, refused whole when it is over 16 MiB, of another version,
  /// not in the format, or when one of its lines does not parse as a codes-file line.
  /// The signature is not checked here (`accept`).
  public static func parse(_ bytes: [UInt8]) -> Result<Parsed, Refusal> {
    guard bytes.count <= maxBytes else { return .failure(.tooLarge(bytes.count)) }
    var reader = LineReader(bytes: bytes)
    guard let first = reader.next(), first.starts(with: Array("pinpadd-replica ".utf8)) else {
      return .failure(.badStructure("no pinpadd-replica line"))
    }
    guard first.elementsEqual(Array("pinpadd-replica \(version)".utf8)) else {
      return .failure(.unknownVersion)
    }
    guard let device = reader.field("device") else { return .failure(.badStructure("no device")) }
    if let problem = deviceProblem(device) { return .failure(.badStructure(problem)) }
    guard let generationText = reader.field("generation"),
      let generation = number(generationText)
    else { return .failure(.badStructure("no generation")) }
    guard let madeText = reader.field("made"), let made = UTCTime.ms(madeText) else {
      return .failure(.badStructure("no made time"))
    }
    var tagKey: [UInt8]? = nil
    if let keyText = reader.field("tag-key") {
      guard keyText.count == 2 * CodeTagKey.size, let key = unhex(keyText) else {
        return .failure(.badStructure("a tag-key that is not 64 hex digits"))
      }
      tagKey = key
    }
    guard let countText = reader.field("lines"), let count = number(countText),
      count <= UInt64(bytes.count)
    else { return .failure(.badStructure("no lines count")) }
    let linesStart = reader.offset
    var lines: [[UInt8]] = []
    // A line is at least 4 bytes ("a:-\n" aside, a hash is longer): no more is reserved.
    lines.reserveCapacity(min(Int(count), (bytes.count - reader.offset) / 4))
    for _ in 0..<count {
      guard let line = reader.next() else { return .failure(.badStructure("truncated")) }
      lines.append(Array(line))
    }
    let linesEnd = reader.offset
    guard let signatureText = reader.field("signature") else {
      return .failure(.badStructure(reader.atEnd ? "truncated" : "more lines than counted"))
    }
    guard signatureText.count == 2 * signatureSize, let signature = unhex(signatureText) else {
      return .failure(.badStructure("a signature that is not 128 hex digits"))
    }
    guard reader.atEnd else { return .failure(.badStructure("bytes after the signature")) }
    let parsed = CodesFile.parse(bytes[linesStart..<linesEnd], path: "replica")
    if let problem = parsed.problems.first {
      // "replica:N: message": the line number and the message, which names no hash.
      let rest = problem.dropFirst("replica:".count)
      let number = Int(rest.prefix { $0 != ":" }) ?? 0
      return .failure(.badLine(number, String(rest.drop { $0 != ":" }.dropFirst(2))))
    }
    guard parsed.entries.count == lines.count else {
      // Entries come in line order: the first number missing is the line skipped.
      let skipped = parsed.entries.enumerated().first { $0.element.line != $0.offset + 1 }
      return .failure(
        .badLine(
          skipped.map { $0.offset + 1 } ?? parsed.entries.count + 1, "an empty line or a comment"))
    }
    let replica = Replica(
      device: String(decoding: device, as: UTF8.self), generation: generation, madeMs: made,
      tagKey: tagKey, lines: lines, signature: signature)
    return .success(Parsed(replica: replica, entries: parsed.entries))
  }

  /// Whether the door takes `replica`: its signature verifies (`verify(signature,
  /// signedBytes)`, the site key's check), it names `device`, and its generation is
  /// newer than `held` (nil: none held). Checked in that order; nil when it is taken.
  public static func refusal(
    of replica: Replica, device: String, held: UInt64?,
    verify: (_ signature: [UInt8], _ message: [UInt8]) -> Bool
  ) -> Refusal? {
    guard verify(replica.signature, replica.signedBytes) else { return .badSignature }
    guard replica.device == device else { return .otherDevice(replica.device) }
    if let held, replica.generation <= held {
      return .notNewer(held: held, offered: replica.generation)
    }
    return nil
  }

  /// A decimal UInt64 with no sign and no leading zero.
  static func number(_ text: ArraySlice<UInt8>) -> UInt64? {
    guard !text.isEmpty, text.count <= 20, text.allSatisfy({ (0x30...0x39).contains($0) }),
      text.first != 0x30 || text.count == 1
    else { return nil }
    return UInt64(String(decoding: text, as: UTF8.self))
  }

  /// Lines ended by LF; a last line without one is not a line.
  struct LineReader {
    let bytes: [UInt8]
    var offset = 0
    var atEnd: Bool { offset == bytes.count }

    mutating func next() -> ArraySlice<UInt8>? {
      guard let end = bytes[offset...].firstIndex(of: 0x0A) else { return nil }
      defer { offset = end + 1 }
      return bytes[offset..<end]
    }

    /// The value of the line `NAME VALUE` when the next line is one; else nothing is read.
    mutating func field(_ name: String) -> ArraySlice<UInt8>? {
      let prefix = Array(name.utf8) + [0x20]
      let saved = offset
      guard let line = next(), line.starts(with: prefix) else {
        offset = saved
        return nil
      }
      return line.dropFirst(prefix.count)
    }
  }
}

extension Replica {
  /// Whether the line with `rules` can open one of `keypads` on `device` and so goes in
  /// its replica: a line without `doors=`, or one whose `doors=` names one of them as
  /// DEVICE/KEYPAD (as `serve --mqtt` matches) or as KEYPAD.
  public static func opens(_ rules: AccessRules, device: String, keypads: [String]) -> Bool {
    rules.doors.isEmpty
      || keypads.contains { keypad in
        let place = "\(device)/\(keypad)"
        return rules.doors.contains { $0.matches(place) || $0.matches(keypad) }
      }
  }

  /// The lines of the codes file `text` for `device`'s `keypads`, verbatim (without the
  /// line end): those `entries` (`CodesFile.parse` of `text`) that `opens`, in file order.
  public static func lines(
    of text: [UInt8], entries: [CodesFile.Entry], device: String, keypads: [String]
  ) -> [[UInt8]] {
    let raw = text.split(separator: 0x0A, omittingEmptySubsequences: false)
    return entries.compactMap { entry in
      guard opens(entry.rules, device: device, keypads: keypads), entry.line >= 1,
        entry.line <= raw.count
      else { return nil }
      var line = raw[entry.line - 1]
      if line.last == 0x0D { line = line.dropLast() }
      return Array(line)
    }
  }
}
