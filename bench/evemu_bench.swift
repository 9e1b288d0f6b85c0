// The Swift side of bench/replay.sh: compiled (-O, whole module) with PinpadCore's
// sources as `main.swift`, it reads an evemu-record file in 64 KiB chunks and parses it
// with EvemuParser, the way `--input replay:` does, then prints what evemu_baseline.c
// prints: the events, their checksum and the CPU microseconds the read and parse took.
// Usage: evemu-bench FILE
import Glibc

func run() -> Int32 {
  let arguments = CommandLine.arguments
  guard arguments.count == 2 else {
    fputs("usage: evemu-bench FILE\n", stderr)
    return 64
  }
  let path = arguments[1]
  var t0 = timespec()
  var t1 = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0)
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else {
    perror(path)
    return 66
  }
  let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
  defer { chunk.deallocate() }
  var parser = EvemuParser(path: path)
  var events: UInt64 = 0
  var checksum: UInt64 = 0
  func take(_ event: RecordedEvent) {
    events &+= 1
    checksum =
      checksum &* 31 &+ UInt64(bitPattern: event.nanoseconds) &+ UInt64(event.type) &* 7
      &+ UInt64(event.code) &* 13 &+ UInt64(UInt32(bitPattern: event.value))
  }
  do {
    while true {
      let n = read(fd, chunk.baseAddress, chunk.count)
      if n < 0 {
        perror(path)
        return 74
      }
      if n == 0 { break }
      try parser.feed(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), take)
    }
    try parser.finish(take)
  } catch {
    fputs("\(error)\n", stderr)
    return 1
  }
  close(fd)
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1)
  let us = (t1.tv_sec - t0.tv_sec) * 1_000_000 + (t1.tv_nsec - t0.tv_nsec) / 1000
  print("\(events) \(checksum) \(us)")
  return 0
}

exit(run())
