import PinpadCore

/// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the codes file's keyed tags
/// (`CodeTag`). Pure Swift: the toolchain has no crypto library. Not constant time
/// with respect to message length (lengths here are public); `wipe()` zeroes what a
/// secret passed through.
public struct SHA256: Sendable {
  public static let digestSize = 32
  public static let blockSize = 64

  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
    0x5be0_cd19
  )
  private var block = [UInt8](repeating: 0, count: 64)
  private var filled = 0
  private var length: UInt64 = 0

  public init() {}

  /// The digest of `bytes` in one call.
  public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var sha = SHA256()
    sha.update(bytes)
    return sha.finalize()
  }

  public mutating func update(_ bytes: some Collection<UInt8>) {
    for byte in bytes {
      block[filled] = byte
      filled += 1
      if filled == 64 {
        compress()
        filled = 0
      }
    }
    length &+= UInt64(bytes.count)
  }

  /// The digest; the hasher is wiped and must not be used again.
  public mutating func finalize() -> [UInt8] {
    let bits = length &* 8
    update(CollectionOfOne(0x80))
    while filled != 56 { update(CollectionOfOne(0)) }
    for shift in stride(from: 56, through: 0, by: -8) {
      update(CollectionOfOne(UInt8(truncatingIfNeeded: bits >> UInt64(shift))))
    }
    let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
    var digest: [UInt8] = []
    digest.reserveCapacity(32)
    for word in words {
      for shift in stride(from: 24, through: 0, by: -8) {
        digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
      }
    }
    wipe()
    return digest
  }

  /// Zeroes the buffered block and the chaining state.
  public mutating func wipe() {
    for i in 0..<64 { block[i] = 0 }
    state = (0, 0, 0, 0, 0, 0, 0, 0)
    filled = 0
    length = 0
  }

  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
    0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
    0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
    0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
    0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
    0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
    0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
    0xc671_78f2,
  ]

  private mutating func compress() {
    var w = [UInt32](repeating: 0, count: 64)
    for t in 0..<16 {
      w[t] =
        UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8
        | UInt32(block[4 * t + 3])
    }
    for t in 16..<64 {
      let s0 = w[t - 15].rotateRight(7) ^ w[t - 15].rotateRight(18) ^ (w[t - 15] >> 3)
      let s1 = w[t - 2].rotateRight(17) ^ w[t - 2].rotateRight(19) ^ (w[t - 2] >> 10)
      w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
    }
    var (a, b, c, d, e, f, g, h) = state
    for t in 0..<64 {
      let s1 = e.rotateRight(6) ^ e.rotateRight(11) ^ e.rotateRight(25)
      let choice = (e & f) ^ (~e & g)
      let t1 = h &+ s1 &+ choice &+ SHA256.k[t] &+ w[t]
      let s0 = a.rotateRight(2) ^ a.rotateRight(13) ^ a.rotateRight(22)
      let majority = (a & b) ^ (a & c) ^ (b & c)
      let t2 = s0 &+ majority
      h = g
      g = f
      f = e
      e = d &+ t1
      d = c
      c = b
      b = a
      a = t1 &+ t2
    }
    state = (
      state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f,
      state.6 &+ g, state.7 &+ h
    )
    for t in 0..<64 { w[t] = 0 }
  }
}

extension UInt32 {
  fileprivate func rotateRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}

/// HMAC-SHA256 with one key: the inner and outer hashers are keyed once and copied for
/// every message, so a tag costs only the message's blocks plus two.
public struct HMACSHA256: Sendable {
  private var inner = SHA256()
  private var outer = SHA256()

  public init(key: some Collection<UInt8>) {
    var keyBlock = key.count > SHA256.blockSize ? SHA256.hash(key) : Array(key)
    keyBlock += [UInt8](repeating: 0, count: SHA256.blockSize - keyBlock.count)
    var pad = keyBlock
    for i in pad.indices { pad[i] = keyBlock[i] ^ 0x36 }
    inner.update(pad)
    for i in pad.indices { pad[i] = keyBlock[i] ^ 0x5c }
    outer.update(pad)
    for i in pad.indices {
      pad[i] = 0
      keyBlock[i] = 0
    }
  }

  /// The MAC of the concatenation of `parts`.
  public func mac(_ parts: [UnsafeBufferPointer<UInt8>]) -> [UInt8] {
    var sha = inner
    for part in parts { sha.update(part) }
    let innerDigest = sha.finalize()
    var out = outer
    out.update(innerDigest)
    return out.finalize()
  }

  /// The MAC of one message.
  public func mac(_ message: [UInt8]) -> [UInt8] {
    message.withUnsafeBufferPointer { mac([$0]) }
  }
}
