// The floor of `make bench`'s start-up and idle-RSS figures, measured as pinpadd is: a
// Swift program (runtime linked statically, as pinpadd ships) that binds a Unix socket
// at argv[1], accepts one connection, writes one line to it and then waits in pause()
// until a signal ends it. Nothing else: no configuration, no inputs, no event loop.
import Glibc

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
  fputs("usage: listen PATH\n", stderr)
  exit(64)
}
let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
var address = sockaddr_un()
address.sun_family = sa_family_t(AF_UNIX)
let path = Array(arguments[1].utf8)
guard listener >= 0, path.count < MemoryLayout.size(ofValue: address.sun_path) else { exit(69) }
withUnsafeMutableBytes(of: &address.sun_path) { raw in
  for (i, byte) in path.enumerated() { raw[i] = byte }
}
let bound = withUnsafePointer(to: &address) {
  $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
  }
}
guard bound == 0, listen(listener, 16) == 0 else { exit(69) }
let client = accept(listener, nil, nil)
guard client >= 0 else { exit(69) }
let hello = Array("{\"type\":\"hello\"}\n".utf8)
_ = hello.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
while true { _ = pause() }
