import Foundation
import Glibc

/// A temporary folder under /tmp (mkdtemp), removed with everything in it when dropped.
public final class TempDir: @unchecked Sendable {
  public let path: String

  /// `prefix`: the folder's name before mkdtemp's six random characters.
  public init(prefix: String = "pinpadd-test") {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
    path = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// The path of `name` in the folder.
  public func file(_ name: String) -> String { path + "/" + name }

  /// Writes `text` to `name` (mode 0644 under the usual umask) and returns its path.
  @discardableResult
  public func write(_ name: String, _ text: String) -> String {
    write(name, bytes: Array(text.utf8))
  }

  @discardableResult
  public func write(_ name: String, bytes: [UInt8]) -> String {
    let p = file(name)
    _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
    return p
  }

  /// `name`'s text, or "" when it cannot be read.
  public func read(_ name: String) -> String {
    (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
  }
}
