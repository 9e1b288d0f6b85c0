// `make bench`'s replica figures (issue 43): the site's build and signature of a replica
// of 10 000 people, the door's check and reading of it, with the site's Ed25519 key
// (OpenSSL's libcrypto, as pinpadctl signs), and the door's tag scan for one code (an
// HMAC-SHA256 a line, before any crypt(3) check). Prints `name: value` lines, milliseconds
// (median of the rounds); asserts nothing. Never installed or packaged.
//
//   pinpadd-bench-replica PRIVATE.pem PUBLIC.pem [ROUNDS]    (default 9)
import Glibc
import PinpadControl
import PinpadControlCore
import PinpadCore

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  print("usage: pinpadd-bench-replica PRIVATE.pem PUBLIC.pem [ROUNDS]")
  exit(64)
}
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 9 : 9
let signer = try Ed25519SigningKey(path: arguments[1])
let siteKey = try Ed25519PublicKey(path: arguments[2])
let clock = ContinuousClock()

func millis(_ d: Duration) -> Double {
  Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
}
/// The median, to a tenth of a millisecond.
func median(_ values: [Double]) -> Double {
  (values.sorted()[values.count / 2] * 10).rounded() / 10
}

/// The codes file's tag key (as `FILE.key` holds it), carried in the replica.
let tagKeyBytes = (0..<UInt8(CodeTagKey.size)).map { $0 &* 7 &+ 3 }
let tagKeyID = String(decoding: CodeTagKey(key: tagKeyBytes).id, as: UTF8.self)

/// A codes file of `people` lines as `pinpadctl hash --key` writes them (yescrypt-shaped
/// hashes, tags, some rules); one in ten is for another device's doors.
func codesFile(people: Int) -> [UInt8] {
  let chars = Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
  var state: UInt64 = 0x9E37_79B9_7F4A_7C15
  func random(_ n: Int) -> String {
    String(
      decoding: (0..<n).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return chars[Int(state >> 58)]
      }, as: UTF8.self)
  }
  var text = ""
  for i in 0..<people {
    let doors = i % 10 == 0 ? ",doors=door-2/*" : i % 10 == 1 ? ",doors=door-1/front" : ""
    let digits = String(i % 65536, radix: 16)
    let tag = String(repeating: "0", count: 4 - digits.count) + digits
    text += "person\(i):$y$j9T$\(random(22))$\(random(43)):tag=\(tagKeyID).\(tag)"
    text += (i % 3 == 0 ? ",until=2030-01-01" : "") + doors + "\n"
  }
  return Array(text.utf8)
}

// 11 112 lines, of which the 1112 for door-2 are left out: 10 000 people for door-1.
let text = codesFile(people: 11_112)
let entries = CodesFile.parse(text, path: "codes").entries
var encoded: [UInt8] = []
var people = 0
var site: [Double] = []
for round in 0..<rounds {
  let start = clock.now
  let lines = Replica.lines(of: text, entries: entries, device: "door-1", keypads: ["front"])
  var replica = Replica(
    device: "door-1", generation: UInt64(round + 1), madeMs: 1_796_619_600_000,
    tagKey: tagKeyBytes, lines: lines)
  replica.signature = try signer.sign(replica.signedBytes)
  encoded = replica.encoded()
  site.append(millis(clock.now - start))
  people = lines.count
}
var door: [Double] = []
var held: [CodesFile.Entry] = []
var doorKey: CodeTagKey? = nil
for _ in 0..<rounds {
  let start = clock.now
  guard case .success(let parsed) = Replica.parse(encoded),
    Replica.refusal(
      of: parsed.replica, device: "door-1", held: 0, verify: { siteKey.verify($0, of: $1) }) == nil,
    parsed.entries.count == people, let key = parsed.replica.tagKey.map(CodeTagKey.init(key:))
  else {
    print("pinpadd-bench-replica: the replica was refused")
    exit(1)
  }
  door.append(millis(clock.now - start))
  (held, doorKey) = (parsed.entries, key)
}
// The door's first step for each code: every line's keyed tag (one HMAC-SHA256 each),
// leaving the few lines its yescrypt checks then run on (CodesLookup.candidates).
var scan: [Double] = []
var left = 0
for round in 0..<rounds {
  let code = Array(String(12_345_678 + round).utf8)
  let start = clock.now
  left = code.withUnsafeBufferPointer {
    CodesLookup.candidates(in: held, code: $0, card: nil, key: doorKey).count
  }
  scan.append(millis(clock.now - start))
}
print("replica_people: \(people)")
print("replica_bytes: \(encoded.count)")
print("replica_site_build_sign_ms: \(median(site))")
print("replica_door_verify_apply_ms: \(median(door))")
print("door_tag_scan_ms_\(people): \(median(scan)) (\(left) lines left)")
