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
