import PinpadProgram

/// A failure to start: the exit code (pinpadd(8), EXIT STATUS) and one line for the person.
public struct StartError: Error, CustomStringConvertible {
  public var exitCode: Int32
  public var description: String
  public init(_ exitCode: Int32, _ description: String) {
    self.exitCode = exitCode
    self.description = description
  }
  public static func unavailable(_ text: String) -> StartError {
    StartError(ExitCode.unavailable.rawValue, text)
  }
  public static func configuration(_ text: String) -> StartError {
    StartError(ExitCode.config.rawValue, text)
  }
}
