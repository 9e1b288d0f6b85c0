import PinpadCore
import PinpadSystem

/// Where log lines go. The process picks the sink; tests use an in-memory one.
public protocol LogSink: AnyObject {
  func write(_ level: LogLevel, _ line: String)
}

/// One line per message on stderr, with `<N>` priority prefixes when stderr is the
/// journal (the log of pinpadd(8), OPTIONS, --log-level). A message is never split:
/// newlines inside it become spaces.
public final class StandardErrorSink: LogSink {
  private let prefixes: Bool
  public init(journalPrefixes: Bool = Systemd.stderrIsJournal()) { prefixes = journalPrefixes }
  public func write(_ level: LogLevel, _ line: String) {
    var text = prefixes ? "<\(level.rawValue)>" : ""
    text += line.replacingNewlines()
    text += "\n"
    try? FileDescriptor.standardError.writeAll(Array(text.utf8))
  }
}

/// Log lines kept in memory (tests).
public final class MemoryLogSink: LogSink {
  public private(set) var lines: [(LogLevel, String)] = []
  public init() {}
  public func write(_ level: LogLevel, _ line: String) { lines.append((level, line)) }
}

/// The daemon's logger. Messages are built by the caller from names, counts and
/// states: nothing that holds a code's digit is ever passed here (the entry core
/// hands out lengths only; key events are logged by name only for non-digit keys).
public final class Logger {
  public var level: LogLevel
  private let sink: LogSink
  public init(level: LogLevel = .info, sink: LogSink = StandardErrorSink()) {
    self.level = level
    self.sink = sink
  }
  /// Takes the lines instead of the sink while set: the console display, when it draws
  /// on the terminal the log would go to, shows them on its status line.
  public var divert: ((LogLevel, String) -> Void)? = nil

  public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
    guard level >= self.level else { return }
    if let divert {
      divert(level, message().replacingNewlines())
    } else {
      sink.write(level, message())
    }
  }
  public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
  public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
  public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
  public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}

extension String {
  func replacingNewlines() -> String {
    guard utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return self }
    return String(unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : Character($0) })
  }
}
