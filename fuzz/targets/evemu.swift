// Fuzz target: the evemu-record parser behind `--input replay:FILE`.
//
// An accepted recording starts at time 0, never goes back in time, and written out
// again as `E:` lines (as evemu-record prints them) parses to the same events. A
// refused one names the file and a line that exists, in one line. Either way the
// one-pass reading of evemu's layout gives what the full reading alone gives.
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = bytes(data, size)
  let full = fullReading(input)
  let events: [RecordedEvent]
  do { events = try EvemuRecording.parse(input, path: "fuzz.evemu") } catch {
    require(full == .failure(error), "the full reading differs: \(full) / \(error)")
    require(error.path == "fuzz.evemu", "error names \(error.path)")
    require(error.line >= 1 && error.line <= size + 1, "error line \(error.line)")
    require(isOneLine(error.description), "error spans lines")
    return 0
  }
  require(full == .success(events), "the full reading differs: \(full)")
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

/// The recording read with the one-pass reading off: every line the full way.
func fullReading(_ input: [UInt8]) -> Result<[RecordedEvent], RecordingError> {
  var parser = EvemuParser(path: "fuzz.evemu", quickLines: false)
  var events: [RecordedEvent] = []
  return input.withUnsafeBytes { all in
    do throws(RecordingError) {
      try parser.feed(all) { events.append($0) }
      try parser.finish { events.append($0) }
      return .success(events)
    } catch { return .failure(error) }
  }
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
