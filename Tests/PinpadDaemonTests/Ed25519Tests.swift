import Foundation
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// The replicas' signatures (docs/protocol.md, "Replica") against keys and signatures
/// made by the real `openssl` command.
@Suite struct Ed25519Tests {
  /// A temp folder with `site.pem` (private, 0600) and `site.pub` from `openssl`.
  final class Keys {
    let dir = TempDir(prefix: "pinpadd-ed25519")
    var privatePath: String { dir.file("site.pem") }
    var publicPath: String { dir.file("site.pub") }

    init(name: String = "site") throws {
      try Self.openssl(["genpkey", "-algorithm", "ed25519", "-out", privatePath])
      try Self.openssl(["pkey", "-in", privatePath, "-pubout", "-out", publicPath])
      chmod(privatePath, 0o600)
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> Finished {
      let done = try runProgram("/usr/bin/openssl", arguments)
      #expect(done.status == 0, "openssl \(arguments): \(done.stderr)")
      return done
    }

    func bytes(_ path: String) -> [UInt8] {
      Array(FileManager.default.contents(atPath: path) ?? Data())
    }
  }

  static let message = Array("pinpadd-replica 1\ndevice door-1\ngeneration 7\n".utf8)

  @Test func aSignatureOfOursVerifiesWithItsPublicKey() throws {
    let keys = try Keys()
    let signer = try Ed25519SigningKey(path: keys.privatePath)
    let verifier = try Ed25519PublicKey(path: keys.publicPath)
    let signature = try signer.sign(Self.message)
    #expect(signature.count == 64)
    #expect(verifier.verify(signature, of: Self.message))
  }

  @Test func aChangedMessageOrSignatureDoesNotVerify() throws {
    let keys = try Keys()
    let signer = try Ed25519SigningKey(path: keys.privatePath)
    let verifier = try Ed25519PublicKey(path: keys.publicPath)
    let signature = try signer.sign(Self.message)
    var changed = Self.message
    changed[changed.count - 2] ^= 1
    #expect(!verifier.verify(signature, of: changed))
    var badSignature = signature
    badSignature[10] ^= 0x80
    #expect(!verifier.verify(badSignature, of: Self.message))
    #expect(!verifier.verify(signature.dropLast(), of: Self.message))
    #expect(!verifier.verify([], of: Self.message))
  }

  @Test func anotherKeysSignatureDoesNotVerify() throws {
    let site = try Keys()
    let forger = try Keys()
    let signature = try Ed25519SigningKey(path: forger.privatePath).sign(Self.message)
    #expect(!(try Ed25519PublicKey(path: site.publicPath)).verify(signature, of: Self.message))
  }

  @Test func opensslVerifiesOurSignature() throws {
    let keys = try Keys()
    let signature = try Ed25519SigningKey(path: keys.privatePath).sign(Self.message)
    keys.dir.write("message", bytes: Self.message)
    keys.dir.write("signature", bytes: signature)
    let done = try runProgram(
      "/usr/bin/openssl",
      [
        "pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", keys.publicPath, "-in",
        keys.dir.file("message"), "-sigfile", keys.dir.file("signature"),
      ])
    #expect(done.status == 0, "\(done.stdout) \(done.stderr)")
    #expect(done.stdout.contains("Signature Verified Successfully"))
  }

  @Test func weVerifyOpensslsSignature() throws {
    let keys = try Keys()
    keys.dir.write("message", bytes: Self.message)
    try Keys.openssl([
      "pkeyutl", "-sign", "-rawin", "-inkey", keys.privatePath, "-in", keys.dir.file("message"),
      "-out", keys.dir.file("signature"),
    ])
    let signature = keys.bytes(keys.dir.file("signature"))
    #expect(signature.count == 64)
    let verifier = try Ed25519PublicKey(path: keys.publicPath)
    #expect(verifier.verify(signature, of: Self.message))
    #expect(!verifier.verify(signature, of: Self.message + [0x0A]))
  }

  @Test func thePublicHalfIsWhatOpensslWrites() throws {
    let keys = try Keys()
    let signer = try Ed25519SigningKey(path: keys.privatePath)
    #expect(try signer.publicKeyPEM() == keys.bytes(keys.publicPath))
  }

  @Test func aPrivateKeyOthersMayReadIsRefused() throws {
    let keys = try Keys()
    chmod(keys.privatePath, 0o644)
    #expect {
      try Ed25519SigningKey(path: keys.privatePath)
    } throws: { error in
      "\(error)".contains("others may read it") && "\(error)".contains(keys.privatePath)
    }
  }

  @Test func otherKeysAndJunkAreRefused() throws {
    let keys = try Keys()
    let rsa = keys.dir.file("rsa.pem")
    try Keys.openssl([
      "genpkey", "-algorithm", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", rsa,
    ])
    chmod(rsa, 0o600)
    #expect(throws: Ed25519Error.self) { try Ed25519SigningKey(path: rsa) }
    #expect {
      try Ed25519SigningKey(pem: keys.bytes(rsa))
    } throws: { "\($0)".contains("not an Ed25519 private key") }
    // A public key where the private one is expected, and the other way round.
    #expect(throws: Ed25519Error.self) { try Ed25519SigningKey(pem: keys.bytes(keys.publicPath)) }
    #expect(throws: Ed25519Error.self) { try Ed25519PublicKey(pem: keys.bytes(keys.privatePath)) }
    #expect(throws: Ed25519Error.self) { try Ed25519PublicKey(pem: Array("junk\n".utf8)) }
    #expect(throws: Ed25519Error.self) { try Ed25519PublicKey(pem: []) }
    #expect(throws: Ed25519Error.self) { try Ed25519PublicKey(path: keys.dir.file("absent")) }
  }
}
