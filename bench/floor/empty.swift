// The floor of `make bench`'s RSS and start-up figures: a Swift program that does
// nothing. With an argument it exits at once (start-up); without, it waits in pause()
// so that its resident memory can be read from /proc.
import Glibc

if CommandLine.arguments.count < 2 { _ = pause() }
