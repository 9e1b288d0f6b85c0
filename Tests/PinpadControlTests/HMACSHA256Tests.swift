import Foundation
import PinpadControl
import PinpadControlCore
import Testing

private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
extension HMACSHA256 {
  /// The MAC of one message.
  fileprivate func mac(_ message: [UInt8]) -> [UInt8] {
    message.withUnsafeBufferPointer { mac([$0]) }
  }
}

extension CodeTagKey {
  /// The key in a key file's text, as `TagKeyFile.load` reads it.
  fileprivate init?(file bytes: [UInt8]) {
    guard let key = CodeTagKey.keyBytes(file: bytes) else { return nil }
    self.init(key: key)
  }
}

/// HMAC-SHA256 of the codes file's tags, through OpenSSL's libcrypto.
@Suite struct HMACSHA256Tests {
  @Test("RFC 4231 test cases 1-4, 6 and 7")
  func rfc4231() {
    let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
      (
        [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
      ),
      (
        Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      ),
      (
        [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
      ),
      (
        Array(1...25), [UInt8](repeating: 0xcd, count: 50),
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
      ),
      (
        [UInt8](repeating: 0xaa, count: 131),
        Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
      ),
      (
        [UInt8](repeating: 0xaa, count: 131),
        Array(
          ("This is a test using a larger than block-size key and a larger than block-size data."
            + " The key needs to be hashed before being used by the HMAC algorithm.").utf8),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
      ),
    ]
    for (key, data, mac) in cases {
      #expect(hex(HMACSHA256(key: key).mac(data)) == mac)
    }
  }

  @Test("a MAC over parts equals the MAC of their concatenation; one keyed value serves many")
  func parts() {
    let hmac = HMACSHA256(key: Array("key".utf8))
    let a = Array("pinpadd pin tag".utf8)
    let b = Array("$y$j9T$salt$hash".utf8)
    let whole = hmac.mac(a + b)
    let split = a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { hmac.mac([a, $0]) } }
    #expect(whole == split)
    #expect(hmac.mac(a) == hmac.mac(a))
    #expect(hmac.mac(a) != hmac.mac(b))
    let none: [UnsafeBufferPointer<UInt8>] = []
    #expect(hmac.mac(none) == hmac.mac([UInt8]()))
  }

  @Test("one key MACs on many threads at once, each as alone")
  func concurrent() async {
    let hmac = HMACSHA256(key: Array(repeating: 0x42, count: 32))
    let messages = (0..<64).map { Array("message \($0)".utf8) }
    let alone = messages.map { hmac.mac($0) }
    let together = await withTaskGroup(of: (Int, [UInt8]).self) { group in
      for (i, message) in messages.enumerated() {
        group.addTask { (i, (0..<50).map { _ in hmac.mac(message) }.last!) }
      }
      var out = [[UInt8]](repeating: [], count: messages.count)
      for await (i, mac) in group { out[i] = mac }
      return out
    }
    #expect(together == alone)
  }

  @Test("a tag key from a key file's text, upper or lower case; anything else is none")
  func keyFile() {
    let key = Array(0..<32).map { UInt8($0 * 7 & 0xFF) }
    let text = CodeTagKey.fileText(key)
    #expect(CodeTagKey(file: Array(text.utf8))?.id == CodeTagKey(key: key).id)
    #expect(CodeTagKey(file: Array(text.uppercased().utf8))?.id == CodeTagKey(key: key).id)
    #expect(CodeTagKey(file: Array("abc\n".utf8)) == nil)
    #expect(CodeTagKey(key: key).id != CodeTagKey(key: Array(repeating: 7, count: 32)).id)
  }

  @Test(
    "HMAC-SHA256 agrees with openssl dgst on messages of 0 to 200 bytes",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
  func againstOpenSSL() throws {
    var generator = SystemRandomNumberGenerator()
    for length in [0, 1, 31, 55, 56, 63, 64, 65, 119, 120, 128, 200] {
      let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + hex(key)]
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      input.fileHandleForWriting.write(Data(message))
      try input.fileHandleForWriting.close()
      let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      let theirs = text.split(separator: " ").last.map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }
      #expect(theirs == hex(HMACSHA256(key: key).mac(message)), "length \(length)")
      #expect(theirs?.count == 64)
    }
  }
}
