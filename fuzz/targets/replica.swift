// Fuzz target: the replica a door receives from the site (docs/protocol.md, "Replica"),
// parsed by PinpadControlCore's Replica from any bytes, and the door's log messages and
// the site's acks (LogEntry, LogAck) that travel beside it.
//
// A replica is taken or refused whole: a taken one encodes back to the very bytes it
// came from (what is verified is what is used), its entries are its lines as the
// codes-file parser reads them, and the door's acceptance rule orders signature, device,
// generation; a refusal is one line. A log entry or ack that parses writes back to one
// that parses equal.
import PinpadControlCore
import PinpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplica(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = bytes(data, size)
  switch Replica.parse(input) {
  case .failure(let refusal):
    require(isOneLine(refusal.description), "a refusal spans lines: \(refusal)")
  case .success(let parsed):
    let replica = parsed.replica
    require(replica.encoded() == input, "a replica that does not encode to its bytes")
    require(parsed.entries.count == replica.lines.count, "entries and lines differ")
    require(replica.signature.count == Replica.signatureSize, "a signature of another size")
    require(Replica.deviceProblem(Array(replica.device.utf8)) == nil, "a bad device taken")
    var lines: [UInt8] = []
    for line in replica.lines { lines += line + [0x0A] }
    let file = CodesFile.parse(lines, path: "replica")
    require(file.problems.isEmpty && file.entries == parsed.entries, "lines read otherwise")
    let yes: ([UInt8], [UInt8]) -> Bool = { _, _ in true }
    let no: ([UInt8], [UInt8]) -> Bool = { _, _ in false }
    let device = replica.device
    let generation = replica.generation
    require(
      Replica.refusal(of: replica, device: device, held: nil, verify: yes) == nil, "not taken")
    require(
      Replica.refusal(of: replica, device: device, held: nil, verify: no) == .badSignature,
      "taken unsigned")
    require(
      Replica.refusal(of: replica, device: device + "x", held: nil, verify: yes)
        == .otherDevice(device), "taken for another device")
    require(
      Replica.refusal(of: replica, device: device, held: generation, verify: yes)
        == .notNewer(held: generation, offered: generation), "taken again")
  }
  if let entry = LogEntry(json: input) {
    require(LogEntry(json: Array(entry.json.utf8)) == entry, "a log entry reads back otherwise")
  }
  if let ack = LogAck(json: input) {
    require(LogAck(json: Array(ack.json.utf8)) == ack, "an ack reads back otherwise")
  }
  return 0
}
