import CLibcrypto
import PinpadControlCore
import Synchronization

// HMAC-SHA256 (RFC 2104) through OpenSSL's libcrypto (EVP_MAC-HMAC(7)): the MAC of the
// codes file's keyed tags (`CodeTag`, docs/protocol.md "Codes file: options"), which
// `hash` writes and `serve` and a door's bridge compute for every line a code could
// match. With Ed25519.swift, pinpadctl's only libcrypto callers.

/// HMAC-SHA256 under one key: keyed once; each MAC starts again from the keyed state
/// (EVP_MAC_init with no key reuses the one set, EVP_MAC_init(3)), so a tag costs only
/// its message's blocks, with no allocation.
public final class HMACSHA256: TagMAC, Sendable {
  /// The keyed context, one MAC at a time.
  private let keyed: Mutex<Context>

  // @unchecked: the context is owned here alone and only used under the mutex.
  private struct Context: ~Copyable, @unchecked Sendable {
    let pointer: OpaquePointer
    deinit { EVP_MAC_CTX_free(pointer) }
  }

  /// Keyed with `key` (OpenSSL keeps its own copy, and clears it when freed).
  public init(key: [UInt8]) {
    defer { ERR_clear_error() }
    // Only a libcrypto without its default provider fails here: not a usable system.
    guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else {
      fatalError("libcrypto has no HMAC (OpenSSL's default provider)")
    }
    defer { EVP_MAC_free(mac) }
    guard let context = EVP_MAC_CTX_new(mac) else { fatalError("libcrypto: out of memory") }
    // An OSSL_PARAM keeps pointers to its name and value, not copies: both must outlive
    // EVP_MAC_init (a string literal passed as the name is a temporary, gone at once).
    let name = Array("digest".utf8CString)
    var digest = Array("SHA256".utf8CString)
    let status = name.withUnsafeBufferPointer { name in
      digest.withUnsafeMutableBufferPointer { digest in
        var parameters = [
          OSSL_PARAM_construct_utf8_string(name.baseAddress, digest.baseAddress, 0),
          OSSL_PARAM_construct_end(),
        ]
        return key.withUnsafeBufferPointer {
          EVP_MAC_init(context, $0.baseAddress, $0.count, &parameters)
        }
      }
    }
    guard status == 1 else {
      EVP_MAC_CTX_free(context)
      fatalError("libcrypto has no HMAC-SHA256 (OpenSSL's default provider)")
    }
    keyed = Mutex(Context(pointer: context))
  }

  /// The 32-byte MAC of the concatenation of `parts`.
  public func mac(_ parts: [UnsafeBufferPointer<UInt8>]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    let done = keyed.withLock { context in
      var length = 0
      guard EVP_MAC_init(context.pointer, nil, 0, nil) == 1 else { return false }
      for part in parts where part.count > 0 {
        guard EVP_MAC_update(context.pointer, part.baseAddress, part.count) == 1 else {
          return false
        }
      }
      return EVP_MAC_final(context.pointer, &out, &length, out.count) == 1 && length == 32
    }
    // Keyed and sized at init: only a broken libcrypto fails here.
    guard done else { fatalError("libcrypto: HMAC-SHA256 failed") }
    return out
  }
}

extension CodeTagKey {
  /// The key of the tags from its 32 bytes (`FILE.key`, a replica's `tag-key`).
  public init(key: [UInt8]) { self.init(mac: HMACSHA256(key: key)) }
}
