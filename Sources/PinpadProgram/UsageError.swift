/// A usage error: exit `ExitCode.usage` (64) with this line.
public struct UsageError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
