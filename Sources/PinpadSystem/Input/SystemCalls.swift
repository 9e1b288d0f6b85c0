import Glibc

/// `strerror(3)` as a Swift string.
func errnoText(_ code: Int32) -> String {
  guard let text = strerror(code) else { return "error \(code)" }
  return String(cString: text)
}

/// Retries a call that fails with EINTR; returns the result or -1 with errno set.
@inline(__always)
func retryingEINTR(_ call: () -> Int32) -> Int32 {
  while true {
    let result = call()
    if result >= 0 || errno != EINTR { return result }
  }
}

/// `poll(2)` with a zero timeout on one fd: the `revents` bits right now.
func pollNow(_ fd: Int32, events: Int16 = Int16(POLLIN)) -> Int16 {
  var entry = pollfd(fd: fd, events: events, revents: 0)
  let result = retryingEINTR { poll(&entry, 1, 0) }
  return result < 0 ? Int16(POLLNVAL) : entry.revents
}
