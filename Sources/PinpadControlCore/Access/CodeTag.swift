import PinpadCore

/// Keyed tags that let `pinpadctl serve` pick the few codes-file lines a code or card can
/// belong to before the slow crypt(3) checks (issue 12; pinpadctl(1), SCALE).
///
/// A tag is the first few hex digits of HMAC-SHA256(key, LABEL 0 HASH 0 SECRET), where
/// HASH is the line's own crypt(3) hash (so equal codes on two lines give unrelated
/// tags) and LABEL says whether SECRET is a PIN or a card number. Written in the codes
/// file as `tag=KEYID.HEX` (the PIN) or `cardtag=KEYID.HEX` (the card); KEYID names the
/// key that made it, so a line tagged with another key is checked in full instead of
/// never matching.
public struct CodeTag: Equatable, Sendable {
  /// Hex digits `hash` writes, for a PIN and for a card: 16 bits, so a code leaves its
  /// own line and about 1 in 65 536 of the others (0.15 lines of 10 000 people) for the
  /// slow crypt(3) checks. What this gives away to whoever holds the key and the hashes
  /// is in pinpadctl(1), SCALE.
  public static let pinDigits = 4
  public static let cardDigits = 4
  public static let maxDigits = 8

  /// The key's id, 4 lowercase hex digits (ASCII).
  public var keyID: [UInt8]
  /// 1...8 lowercase hex digits (ASCII).
  public var digits: [UInt8]

  public init(keyID: [UInt8], digits: [UInt8]) {
    self.keyID = keyID
    self.digits = digits
  }

  /// `KEYID.HEX` as in the codes file; nil unless 4 hex digits, a dot, 1...8 hex digits.
  public init?(option value: some Collection<UInt8>) {
    let bytes = Array(value)
    guard bytes.count >= 6, bytes.count <= 5 + CodeTag.maxDigits, bytes[4] == 0x2E else {
      return nil
    }
    let id = bytes[0..<4].map(CodeTag.lowercased)
    let digits = bytes[5...].map(CodeTag.lowercased)
    guard (id + digits).allSatisfy(CodeTag.isHexDigit) else { return nil }
    self.init(keyID: id, digits: digits)
  }

  public var text: String { String(decoding: keyID + [0x2E] + digits, as: UTF8.self) }

  public enum Kind: Sendable {
    case pin, card
    var label: [UInt8] { self == .pin ? Kind.pinLabel : Kind.cardLabel }
    static let pinLabel = Array("pinpadd pin tag".utf8) + [0]
    static let cardLabel = Array("pinpadd card tag".utf8) + [0]
  }

  static func isHexDigit(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
  }
  static func lowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
  }
  static let hexDigits = Array("0123456789abcdef".utf8)
  static func hex(_ bytes: [UInt8], digits: Int) -> [UInt8] {
    (0..<digits).map { i in
      let byte = bytes[i / 2]
      return hexDigits[Int(i % 2 == 0 ? byte >> 4 : byte & 0x0F)]
    }
  }
}

/// The MAC the tags are made with: HMAC-SHA256 under the tag key. It comes in from the
/// shell (`HMACSHA256` in PinpadControl, OpenSSL's libcrypto), as crypt(3) does, so this
/// module holds no crypto of its own.
public protocol TagMAC: Sendable {
  /// The 32-byte MAC of the concatenation of `parts`.
  func mac(_ parts: [UnsafeBufferPointer<UInt8>]) -> [UInt8]
}

/// The secret key of the tags: 32 random bytes, kept in its own file (64 hex digits on
/// one line) apart from the codes file.
public struct CodeTagKey: Sendable {
  public static let size = 32
  private let mac: any TagMAC
  /// 4 hex digits that name this key in every tag it made.
  public let id: [UInt8]

  /// The key whose MAC (keyed with its 32 bytes) is `mac`.
  public init(mac: any TagMAC) {
    self.mac = mac
    let label = Array("pinpadd key id".utf8)
    id = CodeTag.hex(label.withUnsafeBufferPointer { mac.mac([$0]) }, digits: 4)
  }

  /// The 32 key bytes of a key file's content (`FILE.key`), nil when it
  /// is not one; the caller zeroes them when done.
  public static func keyBytes(file bytes: some Collection<UInt8>) -> [UInt8]? {
    var text = Array(bytes)
    defer { for i in text.indices { text[i] = 0 } }
    if text.last == 0x0A { text.removeLast() }
    if text.last == 0x0D { text.removeLast() }
    guard text.count == 2 * CodeTagKey.size,
      text.allSatisfy({ CodeTag.isHexDigit(CodeTag.lowercased($0)) })
    else { return nil }
    func value(_ byte: UInt8) -> UInt8 {
      let b = CodeTag.lowercased(byte)
      return b <= 0x39 ? b - 0x30 : b - 0x61 + 10
    }
    return (0..<CodeTagKey.size).map { value(text[2 * $0]) << 4 | value(text[2 * $0 + 1]) }
  }

  /// What a key file holds for `key`.
  public static func fileText(_ key: [UInt8]) -> String {
    String(decoding: CodeTag.hex(key, digits: 2 * key.count), as: UTF8.self) + "\n"
  }

  private static let zero: [UInt8] = [0]

  /// The tag of `secret` on the line whose crypt(3) hash is `hash`.
  public func tag(
    _ kind: CodeTag.Kind, hash: [UInt8], secret: UnsafeBufferPointer<UInt8>, digits: Int
  ) -> CodeTag {
    let digest = kind.label.withUnsafeBufferPointer { label in
      hash.withUnsafeBufferPointer { hash in
        CodeTagKey.zero.withUnsafeBufferPointer { zero in mac.mac([label, hash, zero, secret]) }
      }
    }
    return CodeTag(keyID: id, digits: CodeTag.hex(digest, digits: min(digits, CodeTag.maxDigits)))
  }

  /// Whether `tag` allows `secret` on that line: true for a tag of another key (it
  /// cannot narrow anything), else whether its digits are those of `secret`.
  public func allows(
    _ tag: CodeTag, _ kind: CodeTag.Kind, hash: [UInt8], secret: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    guard tag.keyID == id else { return true }
    return self.tag(kind, hash: hash, secret: secret, digits: tag.digits.count).digits
      == tag.digits
  }
}
