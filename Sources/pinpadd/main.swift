import Glibc
import PinpadDaemon

exit(DaemonMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
