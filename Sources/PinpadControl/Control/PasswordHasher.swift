import CLibcrypt
import Glibc

/// crypt(3) through libcrypt: checking a code against `/etc/shadow`-style hashes and
/// making new yescrypt (`$y$`) hashes, for `pinpadctl serve` and `pinpadctl hash`.
///
/// The one `struct crypt_data` (its work area holds material derived from the code)
/// is allocated zeroed and zeroed again after every use.
final class PasswordHasher {
  private let data: UnsafeMutableRawPointer
  private let size = MemoryLayout<crypt_data>.size

  init() {
    data = UnsafeMutableRawPointer.allocate(
      byteCount: MemoryLayout<crypt_data>.size, alignment: MemoryLayout<crypt_data>.alignment)
    data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
  }

  deinit {
    wipe()
    data.deallocate()
  }

  private func wipe() { explicitZero(data, size) }

  /// True when crypt_rn(`code`, `hash`) reproduces `hash`, compared in constant time.
  /// `code` is a NUL-terminated buffer the caller owns and zeroes.
  func matches(code: UnsafePointer<CChar>, hash: [UInt8]) -> Bool {
    defer { wipe() }
    let setting = hash + [0]
    let result = setting.withUnsafeBufferPointer { setting in
      setting.baseAddress!.withMemoryRebound(to: CChar.self, capacity: setting.count) {
        crypt_rn(code, $0, data, Int32(size))
      }
    }
    guard let result else { return false }
    // crypt_rn writes "*0"/"*1" for a setting it cannot use; that never equals a hash.
    return result.withMemoryRebound(to: UInt8.self, capacity: Int(CRYPT_OUTPUT_SIZE)) {
      constantTimeEqual($0, strnlen(result, Int(CRYPT_OUTPUT_SIZE)), hash)
    }
  }

  /// A new yescrypt hash of `code` (NUL-terminated) with a fresh salt from
  /// crypt_gensalt_rn("$y$", 0, NULL, 0) (libcrypt reads the salt from the kernel).
  func makeHash(code: UnsafePointer<CChar>) -> String? {
    defer { wipe() }
    var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
    guard crypt_gensalt_rn("$y$", 0, nil, 0, &setting, Int32(setting.count)) != nil else {
      return nil
    }
    guard let result = crypt_rn(code, setting, data, Int32(size)), result.pointee != 0x2A
    else { return nil }
    return String(cString: result)
  }
}

/// Compares `count` bytes at `a` with `b` (an array, or a secret's buffer that must not
/// be copied) without stopping at the first difference.
func constantTimeEqual<Bytes: RandomAccessCollection<UInt8>>(
  _ a: UnsafePointer<UInt8>, _ count: Int, _ b: Bytes
) -> Bool where Bytes.Index == Int {
  var difference = UInt8(truncatingIfNeeded: count ^ b.count)
  if count != b.count { difference |= 1 }
  for i in 0..<min(count, b.count) { difference |= a[i] ^ b[b.startIndex + i] }
  return difference == 0
}

/// Zeroes `count` bytes through a volatile-style call the optimiser does not drop.
func explicitZero(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
  explicit_bzero(pointer, count)
}
