/// Log levels, most severe first (the sd-daemon priorities they map to in brackets).
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
  case error = 3
  case warning = 4
  case info = 6
  case debug = 7

  public init?(name: String) {
    switch name {
    case "error": self = .error
    case "warning": self = .warning
    case "info": self = .info
    case "debug": self = .debug
    default: return nil
    }
  }

  public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue > b.rawValue }
}

/// One line for a log and its level: what a pure core hands its shell to say (never a
/// code or a card), so the shell picks the priority without reading the text.
public struct LogLine: Equatable, Sendable {
  public var level: LogLevel
  public var text: String

  public init(_ level: LogLevel, _ text: String) {
    self.level = level
    self.text = text
  }

  public static func info(_ text: String) -> LogLine { LogLine(.info, text) }
  public static func warning(_ text: String) -> LogLine { LogLine(.warning, text) }
  public static func error(_ text: String) -> LogLine { LogLine(.error, text) }

  /// As a plain-text log writes it (`pinpadctl serve` on stderr): `warning: ` or
  /// `error: ` before the text.
  public var plain: String {
    switch level {
    case .error: "error: " + text
    case .warning: "warning: " + text
    case .info, .debug: text
    }
  }
}
