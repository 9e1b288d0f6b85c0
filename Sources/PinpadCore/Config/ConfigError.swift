/// One configuration file, already read by the caller: `pinpadd.conf` or one of its
/// drop-ins. `path` is what error messages name.
public struct ConfigSource: Sendable {
  public var path: String
  public var text: String
  public init(path: String, text: String) {
    self.path = path
    self.text = text
  }
}

/// A configuration the daemon refuses.
public typealias ConfigError = FileLineError

/// A file the daemon refuses (a configuration, a recording), with the file and line a
/// person should fix.
///
/// `description` is `PATH:LINE: message`, the line `pinpadd --check-config` prints, or
/// `PATH: message` when no line is to blame (line 0: a file that cannot be read).
public struct FileLineError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  /// 1-based line number in `path`; 0 for the file as a whole.
  public var line: Int
  /// One short line saying what is wrong, e.g. `MinLength=9 is larger than MaxLength=8`.
  public var message: String
  public init(path: String, line: Int, message: String) {
    self.path = path
    self.line = line
    self.message = message
  }
  /// `FILE:LINE: message`, or `FILE: message` when no line applies. Control characters
  /// quoted from the file are escaped (`\r`, `\x1b`), never printed raw.
  public var description: String {
    UntrustedText.escapingControls(
      line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)")
  }
}
