// The C shim: macros with arguments become functions, ioctl numbers become constants.
