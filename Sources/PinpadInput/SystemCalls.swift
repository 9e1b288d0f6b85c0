import Glibc
import PinpadSystem

/// `poll(2)` with a zero timeout on one fd: the `revents` bits right now.
func pollNow(_ fd: Int32, events: Int16 = Int16(POLLIN)) -> Int16 {
  var entry = pollfd(fd: fd, events: events, revents: 0)
  do { _ = try syscall { poll(&entry, 1, 0) } } catch { return Int16(POLLNVAL) }
  return entry.revents
}
