// Fuzz target: the codes file of `pinpadctl serve --codes FILE` (SPEC §9.3), parsed by
// PinpadCore's CodesFile from any bytes.
//
// Every line is an entry or a `FILE:LINE:` problem, never fatal for the others; the
// entries written back (Entry.text, one a line) parse to the same entries with no
// problem.
import PinpadControlCore
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let parsed = CodesFile.parse(bytes(data, size), path: "codes")
  for problem in parsed.problems {
    require(problem.hasPrefix("codes:"), "problem without FILE:LINE: \(problem)")
    require(!problem.utf8.contains(0x0A), "problem spans lines")
  }
  func printable(_ hash: [UInt8]?) -> Bool {
    hash?.allSatisfy { (0x21...0x7E).contains($0) } ?? true
  }
  for entry in parsed.entries {
    require(!entry.name.isEmpty && !entry.name.contains(":"), "bad name \(entry.name)")
    require(!entry.name.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "a name holds a control")
    require(entry.pinHash != nil || entry.cardHash != nil, "an entry with no hash")
    require(printable(entry.pinHash) && printable(entry.cardHash), "a hash is not printable")
  }
  let written = parsed.entries.map { $0.text + "\n" }.joined()
  let again = CodesFile.parse(Array(written.utf8), path: "written")
  require(again.problems.isEmpty, "written entries have problems: \(again.problems)")
  func unnumbered(_ entries: [CodesFile.Entry]) -> [CodesFile.Entry] {
    entries.map {
      var entry = $0
      entry.line = 0
      return entry
    }
  }
  require(unnumbered(again.entries) == unnumbered(parsed.entries), "write/parse round trip differs")
  return 0
}
