import PinpadControlCore

/// The pure core's tests' stand-in for the shell's HMAC-SHA256 (`TagMAC` comes in from
/// PinpadControl, OpenSSL's libcrypto; HMACSHA256Tests there check that one): a keyed
/// mix of every byte (FNV-1a, then splitmix64 for each of the 4 output words), so that
/// tags differ with the key, the line and the secret as the real ones do, and spread
/// evenly. Not a MAC: nothing here is secret.
struct TestMAC: TagMAC {
  let key: [UInt8]

  func mac(_ parts: [UnsafeBufferPointer<UInt8>]) -> [UInt8] {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key + parts.flatMap({ Array($0) }) {
      state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    var out: [UInt8] = []
    for word in 0..<4 {
      var z = state &+ UInt64(word + 1) &* 0x9e37_79b9_7f4a_7c15
      z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
      z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
      z ^= z >> 31
      out += (0..<8).map { UInt8(truncatingIfNeeded: z >> (8 * UInt64($0))) }
    }
    return out
  }
}

extension CodeTagKey {
  /// A key of the tags whose MAC is the test stand-in.
  init(key: [UInt8]) { self.init(mac: TestMAC(key: key)) }
}
