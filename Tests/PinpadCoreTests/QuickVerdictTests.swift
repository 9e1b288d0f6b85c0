import Testing

@testable import PinpadCore

/// `ClientRequest.parse`'s one-pass reading of plain verdict lines: it takes only what
/// the full JSON reading reads alike, so both give the same request or the same error.
@Suite struct QuickVerdictTests {
  static func quickFields(_ line: String) -> QuickVerdict.Fields? {
    Array(line.utf8).withUnsafeBufferPointer { QuickVerdict.fields($0) }
  }

  @Test("a verdict as controllers write it takes the one-pass reading, to the same request")
  func plainVerdictsAreReadInOnePass() {
    let lines = [
      #"{"type":"verdict","id":"0123456789abcdef0123456789abcdef","result":"granted"}"#,
      #"{"type":"verdict","id":"a-1","result":"denied","reason":"wrong_code","message":"No"}"#,
      #" { "id" : "a-1" , "type" : "verdict", "result":"granted","duress":true } "#,
      #"{"type":"verdict","id":"a-1","result":"denied","message":null,"reason":null}"#,
    ]
    for line in lines {
      #expect(Self.quickFields(line) != nil, "\(line)")
      let bytes = Array(line.utf8)
      #expect(ClientRequest.parse(bytes) == ClientRequest.parse(bytes, quick: false), "\(line)")
    }
    #expect(
      ClientRequest.parse(Array(lines[1].utf8))
        == .success(
          .verdict(id: "a-1", granted: false, message: "No", duress: false, reason: "wrong_code")))
  }

  @Test("anything else is left to the full reading")
  func otherLinesAreNotReadInOnePass() {
    for line in [
      #"{"type":"status"}"#, #"{"type":"verdict","id":"a\u0031","result":"granted"}"#,
      #"{"type":"verdict","id":"a-1","result":"granted","id":"b"}"#,
      #"{"type":"verdict","id":"a-1","result":"granted","extra":1}"#, "{}", "",
      #"{"type":"verdict","id":"a-1","result":"granted"} x"#,
      #"{"type":"verdict","id":"café","result":"granted"}"#,
    ] {
      #expect(Self.quickFields(line) == nil, "\(line)")
    }
  }

  /// Random objects of the verdict's members and others, values of every kind (strings
  /// with escapes, non-ASCII and control bytes, numbers, literals cut short), blank
  /// space and stray bytes around them: the same request or error either way.
  @Test("the one-pass reading gives what the full reading gives, for any mix")
  func sameRequestOrErrorEitherWay() {
    let keys = [
      "type", "id", "result", "message", "duress", "reason", "door", "x", "ty\\u0070e", "",
    ]
    let values = [
      #""verdict""#, #""verdict""#, #""granted""#, #""denied""#, #""a-1""#, #""""#, "true",
      "false", "null", "1", "-0.5e3", "[]", "{}", #""caf\#u{e9}""#, #""a\"b""#, "\"tab\there\"",
      "tru", "nul", "\"x\u{7f}\"", #""wrong_code""#, #""Wrong Code""#,
      "\"" + String(repeating: "n", count: 40) + "\"", "\"unterminated",
    ]
    let blanks = ["", "", " ", "\t", "\r", "  "]
    var state: UInt64 = 0x1234_5678_9ABC_DEF1
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33) % bound
    }
    var shuffler = SeededRandom(state: 11)
    var quick = 0
    for round in 0..<20_000 {
      var line = blanks[random(blanks.count)] + "{"
      // Mostly a verdict's members in some order, now and then others.
      var members = ["type", "id", "result"].map { ($0, "") }
      if random(2) == 0 { members.append(("message", "")) }
      if random(3) == 0 { members.append(("reason", "")) }
      if random(3) == 0 { members.append(("duress", "")) }
      if random(4) == 0 { members.append((keys[random(keys.count)], "")) }
      if random(4) == 0 { members.remove(at: random(members.count)) }
      members.shuffle(using: &shuffler)
      for (k, (key, _)) in members.enumerated() {
        let value: String
        switch key {
        case "type" where random(4) > 0: value = #""verdict""#
        case "id" where random(4) > 0: value = #""0123456789abcdef0123456789abcdef""#
        case "result" where random(4) > 0: value = random(2) == 0 ? #""granted""# : #""denied""#
        default: value = values[random(values.count)]
        }
        if k > 0 { line += random(20) == 0 ? "" : "," }
        line +=
          blanks[random(blanks.count)] + "\"\(key)\"" + blanks[random(blanks.count)] + ":"
          + blanks[random(blanks.count)] + value + blanks[random(blanks.count)]
      }
      line += (random(20) == 0 ? "" : "}") + blanks[random(blanks.count)]
      if random(20) == 0 { line += ["x", ",", "}", "{"][random(4)] }
      let bytes = Array(line.utf8)
      let one = ClientRequest.parse(bytes)
      let full = ClientRequest.parse(bytes, quick: false)
      if one != full {
        Issue.record("round \(round), \(line.debugDescription): \(one) / \(full)")
        return
      }
      if Self.quickFields(line) != nil { quick += 1 }
    }
    #expect(quick > 3000, "the one-pass reading took too few lines to test it")
    #expect(quick < 17_000, "the full reading took too few lines to test it")
  }
}
