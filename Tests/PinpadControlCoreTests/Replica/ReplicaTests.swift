import PinpadControlCore
import PinpadCore
import Testing

/// The replica a site sends a door (docs/protocol.md, "Replica"): its bytes, what
/// parsing refuses, which lines a device gets, and which replicas a door takes. The
/// signature is a stand-in keyed checksum here (Ed25519Tests has the real one).
@Suite struct ReplicaTests {
  /// A keyed stand-in for Ed25519: 64 bytes that change with the key and every byte.
  static func sign(_ message: [UInt8], key: UInt64 = 7) -> [UInt8] {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ key
    var out: [UInt8] = []
    for round in 0..<8 {
      for byte in message { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
      h ^= UInt64(round)
      out += (0..<8).map { UInt8(truncatingIfNeeded: h >> ($0 * 8)) }
    }
    return out
  }
  static func verify(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
    signature == sign(message)
  }

  static let alice = Array("alice:$y$j9T$salt$hashA:until=2027-02-01".utf8)
  static let bob = Array("bob:$y$j9T$salt$hashB:doors=door-1/front,duress".utf8)

  static func replica(
    device: String = "door-1", generation: UInt64 = 5, lines: [[UInt8]] = [alice, bob],
    key: UInt64 = 7
  ) -> Replica {
    var r = Replica(
      device: device, generation: generation, madeMs: 1_796_619_600_123, lines: lines)
    r.signature = sign(r.signedBytes, key: key)
    return r
  }

  static func parsed(_ bytes: [UInt8]) -> Replica.Parsed? {
    if case .success(let p) = Replica.parse(bytes) { return p }
    return nil
  }
  static func refusal(_ bytes: [UInt8]) -> Replica.Refusal? {
    if case .failure(let r) = Replica.parse(bytes) { return r }
    return nil
  }
  static func text(_ replica: Replica) -> String {
    String(decoding: replica.encoded(), as: UTF8.self)
  }

  @Test func theBytesAreTheDocumentedFormat() {
    var r = Self.replica()
    r.signature = Array(repeating: 0xAB, count: 64)
    #expect(
      Self.text(r) == """
        pinpadd-replica 1
        device door-1
        generation 5
        made 2026-12-07T05:00:00.123Z
        lines 2
        alice:$y$j9T$salt$hashA:until=2027-02-01
        bob:$y$j9T$salt$hashB:doors=door-1/front,duress
        signature \(String(repeating: "ab", count: 64))

        """)
    #expect(r.encoded().starts(with: r.signedBytes))
    #expect(r.encoded().count == r.signedBytes.count + "signature \n".count + 128)
  }

  @Test func whatIsEncodedParsesBackToTheSameReplicaAndBytes() throws {
    var r = Self.replica()
    r.tagKey = (0..<32).map { UInt8($0 * 7) }
    r.signature = Self.sign(r.signedBytes)
    let p = try #require(Self.parsed(r.encoded()))
    #expect(p.replica == r)
    #expect(p.replica.encoded() == r.encoded())
    #expect(p.replica.people == 2)
    #expect(p.entries.map(\.name) == ["alice", "bob"])
    #expect(p.entries.map(\.line) == [1, 2])
    #expect(p.entries[1].duress)
    #expect(p.entries[1].rules.doors.map(\.pattern) == ["door-1/front"])
    #expect(p.replica.tagKey == r.tagKey && r.tagKey?.count == CodeTagKey.size)
  }

  @Test func theEntriesAreThoseOfTheCodesFileParser() throws {
    let p = try #require(Self.parsed(Self.replica().encoded()))
    let file = CodesFile.parse(Self.alice + [0x0A] + Self.bob + [0x0A], path: "codes")
    #expect(p.entries == file.entries)
  }

  @Test func anEmptyReplicaIsOne() throws {
    let p = try #require(Self.parsed(Self.replica(lines: []).encoded()))
    #expect(p.replica.people == 0 && p.entries.isEmpty)
  }

  @Test func aTakenReplicaVerifiesNamesTheDeviceAndIsNewer() throws {
    let p = try #require(Self.parsed(Self.replica(generation: 5).encoded()))
    #expect(Replica.refusal(of: p.replica, device: "door-1", held: nil, verify: Self.verify) == nil)
    #expect(Replica.refusal(of: p.replica, device: "door-1", held: 4, verify: Self.verify) == nil)
  }

  @Test func aForgedReplicaIsRefused() throws {
    // Signed with another key.
    let forged = try #require(Self.parsed(Self.replica(key: 99).encoded()))
    #expect(
      Replica.refusal(of: forged.replica, device: "door-1", held: 1, verify: Self.verify)
        == .badSignature)
    // Signed, then a line changed (a person added to the signed bytes).
    var changed = Self.replica()
    changed.lines.append(Array("mallory:$y$j9T$salt$hashM".utf8))
    let p = try #require(Self.parsed(changed.encoded()))
    #expect(
      Replica.refusal(of: p.replica, device: "door-1", held: 1, verify: Self.verify)
        == .badSignature)
    // The generation raised by a replayer.
    var raised = Self.replica(generation: 5)
    raised.generation = 6
    #expect(
      Replica.refusal(of: raised, device: "door-1", held: 5, verify: Self.verify) == .badSignature)
  }

  @Test func aReplayedOlderOrSameGenerationIsRefused() {
    let r = Self.replica(generation: 5)
    #expect(
      Replica.refusal(of: r, device: "door-1", held: 5, verify: Self.verify)
        == .notNewer(held: 5, offered: 5))
    #expect(
      Replica.refusal(of: r, device: "door-1", held: 9, verify: Self.verify)
        == .notNewer(held: 9, offered: 5))
  }

  @Test func anotherDevicesReplicaIsRefused() {
    let r = Self.replica(device: "door-2")
    #expect(
      Replica.refusal(of: r, device: "door-1", held: nil, verify: Self.verify)
        == .otherDevice("door-2"))
    #expect("\(Replica.Refusal.otherDevice("door-2"))".contains("another device"))
  }

  @Test func anOversizedReplicaIsRefusedUnread() {
    let bytes = [UInt8](repeating: 0x41, count: Replica.maxBytes + 1)
    #expect(Self.refusal(bytes) == .tooLarge(Replica.maxBytes + 1))
  }

  @Test func anotherVersionIsRefused() {
    var text = Self.text(Self.replica())
    text.replace("pinpadd-replica 1\n", with: "pinpadd-replica 2\n")
    #expect(Self.refusal(Array(text.utf8)) == .unknownVersion)
    #expect(Self.refusal(Array("pinpadd-replica 01\n".utf8)) == .unknownVersion)
    #expect(
      Self.refusal(Array("{\"replica\":1}\n".utf8)) == .badStructure("no pinpadd-replica line"))
  }

  @Test func everyTruncationIsRefused() {
    let bytes = Self.replica().encoded()
    for n in 0..<bytes.count {
      #expect(Self.parsed(Array(bytes.prefix(n))) == nil, "cut at \(n)")
    }
    #expect(Self.refusal(Array(bytes.dropLast(1))) != nil)
    #expect(Self.parsed(bytes) != nil)
  }

  @Test func aLineThatDoesNotParseRefusesTheWholeReplica() {
    for (line, problem) in [
      ("carol", "expected NAME:HASH[:OPTION,...]"),
      ("carol:$y$x:frobnicate", "carol: unknown option frobnicate"),
      ("# a comment", "an empty line or a comment"),
      ("", "an empty line or a comment"),
    ] {
      let r = Self.replica(lines: [Self.alice, Array(line.utf8), Self.bob])
      let refusal = Self.refusal(r.encoded())
      guard case .badLine(let n, let message)? = refusal else {
        Issue.record("\(line): \(String(describing: refusal))")
        continue
      }
      #expect(n == 2 && message.hasPrefix(problem), "\(line): \(message)")
      #expect(!"\(refusal!)".contains("$y$"))
    }
  }

  @Test func badStructureIsRefused() {
    var replica = Self.replica()
    replica.signature = Array(repeating: 0xAB, count: 64)
    let good = Self.text(replica)
    func refused(_ from: String, _ to: String) -> Replica.Refusal? {
      var text = good
      text.replace(from, with: to)
      #expect(text != good, "\(from)")
      return Self.refusal(Array(text.utf8))
    }
    #expect(refused("device door-1\n", "") == .badStructure("no device"))
    #expect(refused("device door-1", "device door/1") != nil)
    #expect(refused("device door-1", "device ") != nil)
    #expect(refused("generation 5", "generation 05") == .badStructure("no generation"))
    #expect(refused("generation 5", "generation -5") == .badStructure("no generation"))
    #expect(
      refused("generation 5", "generation 18446744073709551616") == .badStructure("no generation"))
    #expect(
      refused("made 2026-12-07T05:00:00.123Z", "made 2026-02-30T05:00:00.123Z")
        == .badStructure("no made time"))
    #expect(refused("lines 2", "lines 3") != nil)
    #expect(refused("lines 2", "lines 1") == .badStructure("more lines than counted"))
    #expect(refused("lines 2", "lines 99999999999") == .badStructure("no lines count"))
    #expect(
      refused("signature ab", "signature AB")
        == .badStructure("a signature that is not 128 hex digits"))
    #expect(refused("\nsignature", "\nsignature ab") != nil)
    #expect(Self.refusal(Array((good + "x").utf8)) == .badStructure("bytes after the signature"))
    #expect(Self.refusal(Array((good + "\n").utf8)) == .badStructure("bytes after the signature"))
    #expect(Self.refusal(Array(good.replacing("\n", with: "\r\n").utf8)) != nil)
  }

  @Test func theMadeTimeIsUTCWithMilliseconds() {
    #expect(UTCTime.ms(Array("1970-01-01T00:00:00.000Z".utf8)) == 0)
    #expect(UTCTime.ms(UTCTime.text(ms: 1_796_619_600_123)) == 1_796_619_600_123)
    #expect(
      String(decoding: UTCTime.text(ms: 951_782_400_000), as: UTF8.self)
        == "2000-02-29T00:00:00.000Z")
    #expect(UTCTime.ms(Array("2001-02-29T00:00:00.000Z".utf8)) == nil)
    #expect(UTCTime.ms(Array("2026-12-07T24:00:00.000Z".utf8)) == nil)
    #expect(UTCTime.ms(Array("2026-12-07T05:00:00.000".utf8)) == nil)
    #expect(UTCTime.ms(Array("1969-12-31T23:59:59.999Z".utf8)) == nil)
    #expect(UTCTime.ms(Array("9999-12-31T23:59:59.999Z".utf8)) == nil)
  }

  // MARK: which lines a device gets

  static let codes = """
    # the site's codes file
    alice:$y$j9T$s$a
    bob:$y$j9T$s$b:doors=door-1/front\r
    carol:$y$j9T$s$c:doors=door-2/*
    dave:$y$j9T$s$d:doors=back
    erin:$y$j9T$s$e:doors=door-?/side+lobby
    broken line
    frank:$y$j9T$s$f:disabled

    """

  static func names(device: String, keypads: [String]) -> [String] {
    let text = Array(codes.utf8)
    let entries = CodesFile.parse(text, path: "codes").entries
    return Replica.lines(of: text, entries: entries, device: device, keypads: keypads).map {
      String(decoding: $0.prefix { $0 != 0x3A }, as: UTF8.self)
    }
  }

  @Test func aDeviceGetsTheLinesWithoutDoorsAndThoseNamingOneOfItsKeypads() {
    #expect(Self.names(device: "door-1", keypads: ["front"]) == ["alice", "bob", "frank"])
    #expect(
      Self.names(device: "door-2", keypads: ["front", "side"]) == [
        "alice", "carol", "erin", "frank",
      ])
    #expect(Self.names(device: "door-3", keypads: ["back"]) == ["alice", "dave", "frank"])
    #expect(Self.names(device: "door-3", keypads: ["lobby"]) == ["alice", "erin", "frank"])
    // No keypad known yet: only the lines for every door.
    #expect(Self.names(device: "door-1", keypads: []) == ["alice", "frank"])
  }

  @Test func theLinesAreVerbatimWithoutTheirLineEnds() throws {
    let text = Array(Self.codes.utf8)
    let entries = CodesFile.parse(text, path: "codes").entries
    let lines = Replica.lines(of: text, entries: entries, device: "door-1", keypads: ["front"])
    #expect(lines[1] == Array("bob:$y$j9T$s$b:doors=door-1/front".utf8))
    // A replica of them parses to the same entries as the file's.
    let p = try #require(Self.parsed(Self.replica(lines: lines).encoded()))
    #expect(p.entries.map(\.name) == ["alice", "bob", "frank"])
    #expect(p.entries.map(\.rules) == [entries[0].rules, entries[1].rules, entries[5].rules])
  }

  @Test func deviceNamesAreOneTopicLevel() {
    #expect(Replica.deviceProblem(Array("door-1".utf8)) == nil)
    #expect(Replica.deviceProblem(Array("Tür 2".utf8)) == nil)
    for bad in ["", "a/b", "a+", "#", "a\nb", String(repeating: "x", count: 257)] {
      #expect(Replica.deviceProblem(Array(bad.utf8)) != nil, "\(bad)")
    }
    #expect(Replica.deviceProblem([0xFF]) != nil)
  }
}
