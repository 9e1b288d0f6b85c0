// Fuzz target: the codes file of `pinpadctl serve --codes FILE` (SPEC §9.3).
//
// Every line is an entry or a `FILE:LINE:` problem, never fatal for the others; the
// entries written back as NAME:HASH lines parse to the same entries with no problem.
//
// CodesFile.parse lives in PinpadControl today; fuzz/run.sh compiles that file into
// this target (see fuzz/README.md). Once it takes bytes, pass `input` instead of `text`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let parsed = CodesFile.parse(text(data, size), path: "codes")
  for problem in parsed.problems {
    require(problem.hasPrefix("codes:"), "problem without FILE:LINE: \(problem)")
    require(!problem.utf8.contains(0x0A), "problem spans lines")
  }
  for entry in parsed.entries {
    require(!entry.name.isEmpty && !entry.name.contains(":"), "bad name \(entry.name)")
    require(!entry.hash.isEmpty && !entry.hash.contains(0x0A), "bad hash")
    require(!entry.name.utf8.contains(0x0A), "a name spans lines")
  }
  let written = parsed.entries.map { "\($0.name):\(String(decoding: $0.hash, as: UTF8.self))\n" }
    .joined()
  let again = CodesFile.parse(written, path: "written")
  require(again.problems.isEmpty, "written entries have problems: \(again.problems)")
  require(again.entries == parsed.entries, "write/parse round trip differs")
  return 0
}
