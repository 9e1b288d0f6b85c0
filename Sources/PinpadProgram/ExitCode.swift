/// The exit codes of `pinpadd` and `pinpadctl` (sysexits.h's numbers; pinpadd(8) and
/// pinpadctl(1), EXIT STATUS): what a unit's `RestartPreventExitStatus=` and a script's
/// `case $?` rely on.
public enum ExitCode: Int32, Sendable {
  case success = 0
  /// A failure with no more specific code (the daemon could not start, a command failed).
  case failure = 1
  /// `EX_USAGE`: a bad command line.
  case usage = 64
  /// `EX_UNAVAILABLE`: a resource the command needs is not there (the socket, the broker,
  /// the keypads).
  case unavailable = 69
  /// `EX_CONFIG`: a bad configuration (`FILE:LINE: message`).
  case config = 78
}
