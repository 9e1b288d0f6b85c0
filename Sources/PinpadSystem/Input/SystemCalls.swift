import Glibc

/// `syscall` for callers that check -1 and errno themselves.
@inline(__always)
func retryingEINTR(_ call: () -> Int32) -> Int32 { (try? syscall(call)) ?? -1 }

/// `poll(2)` with a zero timeout on one fd: the `revents` bits right now.
func pollNow(_ fd: Int32, events: Int16 = Int16(POLLIN)) -> Int16 {
  var entry = pollfd(fd: fd, events: events, revents: 0)
  let result = retryingEINTR { poll(&entry, 1, 0) }
  return result < 0 ? Int16(POLLNVAL) : entry.revents
}
