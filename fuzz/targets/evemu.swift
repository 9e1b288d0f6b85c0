// Fuzz target: the evemu-record parser behind `--input replay:FILE`.
//
// An accepted recording starts at time 0, never goes back in time, and written out
// again as `E:` lines (as evemu-record prints them) parses to the same events. A
// refused one names the file and a line that exists, in one line.
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = bytes(data, size)
  let events: [RecordedEvent]
  do { events = try EvemuRecording.parse(input, path: "fuzz.evemu") } catch {
    require(error.path == "fuzz.evemu", "error names \(error.path)")
    require(error.line >= 1 && error.line <= size + 1, "error line \(error.line)")
    require(isOneLine(error.description), "error spans lines")
    return 0
  }
  require(events.first.map { $0.time == .zero } ?? true, "the first event is not at 0")
  for (a, b) in zip(events, events.dropFirst()) {
    require(a.time <= b.time, "time goes back: \(a.time) then \(b.time)")
  }
  let written = events.map(line).joined()
  let again: [RecordedEvent]
  do { again = try EvemuRecording.parse(written, path: "written.evemu") } catch {
    fatalError("the written recording is refused: \(error)")
  }
  require(again == events, "write/parse round trip differs")
  // The replay streams the file: cut in two anywhere, it gives the same events.
  var streamed: [RecordedEvent] = []
  var parser = EvemuParser(path: "fuzz.evemu")
  let cut = size == 0 ? 0 : Int(data[0]) % (size + 1)
  let failure: RecordingError? = input.withUnsafeBytes { all in
    do throws(RecordingError) {
      try parser.feed(UnsafeRawBufferPointer(rebasing: all[..<cut])) { streamed.append($0) }
      try parser.feed(UnsafeRawBufferPointer(rebasing: all[cut...])) { streamed.append($0) }
      try parser.finish { streamed.append($0) }
      return nil
    } catch { return error }
  }
  require(failure == nil, "the whole recording parsed but the streamed one is refused")
  require(streamed == events, "streamed parse differs from the whole")
  return 0
}

/// `E: SECONDS.NANOSECONDS TYPE CODE VALUE`: evemu's layout with 9 fraction digits.
func line(_ event: RecordedEvent) -> String {
  let ns = event.time.nanoseconds
  let fraction = String(ns % 1_000_000_000)
  let nine = String(repeating: "0", count: 9 - fraction.count) + fraction
  return "E: \(ns / 1_000_000_000).\(nine) \(hex(event.type)) \(hex(event.code)) \(event.value)\n"
}

func hex(_ number: UInt16) -> String {
  let digits = String(number, radix: 16)
  return String(repeating: "0", count: 4 - digits.count) + digits
}
