import Glibc
import PinpadDaemon

exit(ControlMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
