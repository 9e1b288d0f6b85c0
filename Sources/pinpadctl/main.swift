import Glibc
import PinpadControl

exit(ControlMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
