import CLibcrypto
import PinpadControlCore
import PinpadSystem

// Ed25519 through OpenSSL's libcrypto: the signature of the replicas a site controller
// sends its doors (docs/protocol.md, "Replica"). Keys are PEM as the `openssl` command
// writes them (`openssl genpkey -algorithm ed25519`, `openssl pkey -pubout`). Ed25519
// signs the message itself, with no digest (EVP_DigestSign* with a NULL digest, as
// OpenSSL's EVP_SIGNATURE-ED25519(7) says). With HMACSHA256.swift, pinpadctl's only
// libcrypto caller.

/// What went wrong loading a key or signing, for a person to act on (no key bytes in it).
public struct Ed25519Error: Error, Equatable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}

/// An Ed25519 private key, owned: freed (OpenSSL clears its bytes) when the last copy goes.
public final class Ed25519SigningKey: @unchecked Sendable {
  // @unchecked: the EVP_PKEY is never changed after loading; OpenSSL allows concurrent
  // signing with one key, each call with its own EVP_MD_CTX.
  private let key: OpaquePointer

  /// The key in `pem` (a PEM "PRIVATE KEY"); the caller zeroes `pem` when done.
  public init(pem: [UInt8]) throws(Ed25519Error) {
    key = try Ed25519.load(pem, what: "private key") { bio in
      PEM_read_bio_PrivateKey(bio, nil, nil, nil)
    }
  }

  /// The key file `path` (`--sign-key`), refused when others may read or write it.
  public convenience init(path: String) throws(Ed25519Error) {
    var pem = try Ed25519.readKeyFile(path, secret: true)
    defer { explicitZero(&pem, pem.count) }
    do { try self.init(pem: pem) } catch { throw Ed25519Error("\(path): \(error)") }
  }

  deinit { EVP_PKEY_free(key) }

  /// The 64-byte signature of `message`.
  public func sign(_ message: [UInt8]) throws(Ed25519Error) -> [UInt8] {
    guard let context = EVP_MD_CTX_new() else { throw Ed25519.failure("cannot sign") }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else {
      throw Ed25519.failure("cannot sign")
    }
    var signature = [UInt8](repeating: 0, count: Ed25519.signatureSize)
    var length = signature.count
    let status = message.withUnsafeBufferPointer { message in
      EVP_DigestSign(context, &signature, &length, message.baseAddress, message.count)
    }
    guard status == 1, length == Ed25519.signatureSize else { throw Ed25519.failure("cannot sign") }
    return signature
  }

  /// The public half, as `openssl pkey -pubout` writes it.
  public func publicKeyPEM() throws(Ed25519Error) -> [UInt8] {
    try Ed25519.pem { bio in PEM_write_bio_PUBKEY(bio, key) }
  }
}

/// An Ed25519 public key, owned.
public final class Ed25519PublicKey: @unchecked Sendable {
  // @unchecked: as Ed25519SigningKey's; verifying never changes the key.
  private let key: OpaquePointer

  /// The key in `pem` (a PEM "PUBLIC KEY").
  public init(pem: [UInt8]) throws(Ed25519Error) {
    key = try Ed25519.load(pem, what: "public key") { bio in
      PEM_read_bio_PUBKEY(bio, nil, nil, nil)
    }
  }

  /// The key file `path` (`SiteKey=`).
  public convenience init(path: String) throws(Ed25519Error) {
    let pem = try Ed25519.readKeyFile(path, secret: false)
    do { try self.init(pem: pem) } catch { throw Ed25519Error("\(path): \(error)") }
  }

  deinit { EVP_PKEY_free(key) }

  /// Whether `signature` is this key's signature of `message`.
  public func verify(_ signature: some Collection<UInt8>, of message: some Collection<UInt8>)
    -> Bool
  {
    let signature = Array(signature)
    guard signature.count == Ed25519.signatureSize, let context = EVP_MD_CTX_new() else {
      return false
    }
    defer {
      EVP_MD_CTX_free(context)
      ERR_clear_error()
    }
    guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
    let message = Array(message)
    return message.withUnsafeBufferPointer { message in
      EVP_DigestVerify(context, signature, signature.count, message.baseAddress, message.count)
    } == 1
  }
}

enum Ed25519 {
  static let signatureSize = 64

  /// A PEM key file's bytes (at most 16 KiB), through `KeyFile`: a `secret` one is
  /// refused when others may read or write it.
  fileprivate static func readKeyFile(_ path: String, secret: Bool) throws(Ed25519Error)
    -> [UInt8]
  {
    do { return try KeyFile.read(path, limit: 16 << 10, secret: secret) } catch {
      throw Ed25519Error(error.description)
    }
  }

  /// A key read from `pem` by `read`, checked to be an Ed25519 key.
  fileprivate static func load(
    _ pem: [UInt8], what: String, _ read: (OpaquePointer) -> OpaquePointer?
  ) throws(Ed25519Error) -> OpaquePointer {
    defer { ERR_clear_error() }
    let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
      guard bytes.count <= Int(Int32.max),
        let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count))
      else { return nil }
      defer { BIO_free(bio) }
      return read(bio)
    }
    guard let key else { throw Ed25519Error("not a PEM \(what)") }
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 else {
      EVP_PKEY_free(key)
      throw Ed25519Error(
        "not an Ed25519 \(what) (make one with openssl genpkey -algorithm ed25519)")
    }
    return key
  }

  /// What `write` puts into a memory BIO.
  fileprivate static func pem(_ write: (OpaquePointer) -> Int32) throws(Ed25519Error) -> [UInt8] {
    defer { ERR_clear_error() }
    guard let bio = BIO_new(BIO_s_mem()) else { throw failure("cannot write the key") }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw failure("cannot write the key") }
    var data: UnsafeMutablePointer<CChar>? = nil
    let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
    guard count > 0, let data else { throw failure("cannot write the key") }
    return Array(UnsafeRawBufferPointer(start: data, count: count))
  }

  fileprivate static func failure(_ what: String) -> Ed25519Error {
    ERR_clear_error()
    return Ed25519Error("\(what) (OpenSSL)")
  }
}
