import PinpadControlCore
import PinpadSystem

/// The one reader of key files: the tags' key (`TagKeyFile`) and the site's Ed25519 keys
/// (`Ed25519SigningKey`, `Ed25519PublicKey`). The file is read whole with nothing of it
/// left in freed memory (the buffer is reserved once, each chunk zeroed once copied); the
/// caller zeroes what it gets. A `secret` key is refused when others may read or write it
/// (`CodesFile.modeProblem`), as the codes file is.
enum KeyFile {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func read(_ path: String, limit: Int, secret: Bool) throws(Failure) -> [UInt8] {
    if secret {
      let status: FileStatus
      do { status = try FileSystem.status(path) } catch {
        throw Failure(description: "\(path): cannot read the key file: \(error.errno)")
      }
      if let why = CodesFile.modeProblem(status.mode) {
        throw Failure(description: "\(path): \(why); the key is not used (chmod o-rwx \(path))")
      }
    }
    let chunkSize = 4096
    var bytes: [UInt8] = []
    bytes.reserveCapacity(limit + chunkSize)
    do {
      try FileSystem.readChunks(path, chunkSize: chunkSize, limit: limit) { chunk in
        bytes.append(contentsOf: chunk)
        if let base = chunk.baseAddress {
          explicitZero(UnsafeMutableRawPointer(mutating: base), chunk.count)
        }
        return true
      }
    } catch {
      explicitZero(&bytes, bytes.count)
      throw Failure(description: "\(path): cannot read the key file: \(error.errno)")
    }
    return bytes
  }
}
