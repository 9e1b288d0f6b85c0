import Glibc
import PinpadTestSupport
import Testing

@testable import PinpadControl

/// `KeyFile`, the one reader of the tags' key and the site's keys, on real files.
@Suite struct KeyFileTests {
  @Test("a secret key file others may read is refused; a public one is read; a missing one says so")
  func secretPublicAndMissing() throws {
    let dir = TempDir()
    let path = dir.write("k", "key text\n")
    chmod(path, 0o644)
    #expect(throws: KeyFile.Failure.self) { try KeyFile.read(path, limit: 4096, secret: true) }
    do {
      _ = try KeyFile.read(path, limit: 4096, secret: true)
    } catch {
      #expect(error.description.hasSuffix("; the key is not used (chmod o-rwx \(path))"))
    }
    #expect(try KeyFile.read(path, limit: 4096, secret: false) == Array("key text\n".utf8))
    chmod(path, 0o600)
    #expect(try KeyFile.read(path, limit: 4096, secret: true) == Array("key text\n".utf8))
    do {
      _ = try KeyFile.read(dir.file("none"), limit: 4096, secret: false)
      Issue.record("a missing file was read")
    } catch {
      #expect(error.description.hasPrefix("\(dir.file("none")): cannot read the key file"))
    }
  }

  @Test("a key file over the limit is refused, not cut")
  func overTheLimit() {
    let dir = TempDir()
    let path = dir.write("big", String(repeating: "A", count: 5000))
    chmod(path, 0o600)
    #expect(throws: KeyFile.Failure.self) { try KeyFile.read(path, limit: 4096, secret: true) }
  }
}
