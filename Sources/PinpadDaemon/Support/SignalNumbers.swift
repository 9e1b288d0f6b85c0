/// The signal numbers the daemon handles, spelled out so that the files that handle them
/// (Daemon.swift and DaemonMain.swift) need not import Glibc.
public enum SignalNumbers {
  public static let hangup: Int32 = 1
  public static let interrupt: Int32 = 2
  public static let terminate: Int32 = 15
}
