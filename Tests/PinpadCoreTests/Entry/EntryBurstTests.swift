import PinpadCore
import Testing

/// The default 15 ms burst interval, with an edit on top.
private func bursty(_ edit: (inout EntryConfig) -> Void = { _ in }) -> EntryConfig {
  .testing {
    $0.burstInterval = .milliseconds(15)
    edit(&$0)
  }
}

@Suite("Entry bursts")
struct EntryBurstTests {
  @Test("a lone key acts once the burst interval has passed")
  func loneKeySettles() {
    var script = EntryScript(bursty())
    #expect(script.run("@0 KP1") == "")
    #expect(script.machine.length == 0)
    #expect(script.machine.nextDeadline == script.at("0.015"))
    #expect(script.run("@0.014999999 tick") == "")
    #expect(script.run("@0.015 tick") == "started:1 screen")
    #expect(script.machine.length == 1)
  }

  @Test("a key outside the interval settles the one before it")
  func nextKeySettles() {
    var script = EntryScript(bursty())
    script.run("@0 KP1")
    #expect(script.run("@0.020 KP2") == "started:1 screen")
    #expect(script.machine.length == 1)
    #expect(script.run("wait") == "changed:2 screen")
  }

  @Test("keys exactly one interval apart are not a burst")
  func exactlyOneIntervalApart() {
    var script = EntryScript(bursty { $0.bursts = .reject })
    script.run("@0 1 @0.015 2 @0.030 3 @0.045 4 @0.060 ENTER wait")
    #expect(script.codes == ["1234"])
  }

  @Test("keys just under one interval apart are a burst")
  func justUnderOneInterval() {
    var script = EntryScript(bursty { $0.bursts = .reject })
    script.run("@0 1 @0.014999999 2")
    #expect(script.run("wait") == "rejected:0 !burstRejected")
    #expect(script.machine.length == 0)
  }

  @Test("a pasted code with Enter is typed and submitted")
  func pastedCodeAccepted() {
    var script = EntryScript(bursty())
    script.run("@0 1 +0.002 2 +0.002 3 +0.002 4 +0.002 ENTER")
    #expect(script.machine.nextDeadline == script.at("0.023"))
    #expect(
      script.run("wait") == "started:1 changed:2 changed:3 changed:4 submit:1234 screen")
    #expect(script.machine.phase == .checking)
  }

  @Test("a burst keeps growing while each key follows the last within the interval")
  func burstChains() {
    var script = EntryScript(bursty { $0.bursts = .reject })
    script.run("@0 1 @0.010 2 @0.020 3 @0.030 4")
    #expect(script.run("@0.044 tick") == "")
    #expect(script.run("@0.045 tick") == "rejected:0 !burstRejected")
  }

  @Test(
    "a burst with a disallowed key is rejected whole, keys before it too",
    arguments: ["3 +0.001 KEY_A +0.001 4", "KEY_A +0.001 3 4", "3 4 5 +0.001 KEY_A"])
  func burstWithDisallowedKey(_ burst: String) {
    var script = EntryScript(bursty())
    script.run("@0 1 @1 2 @2 tick")
    #expect(script.machine.length == 2)
    script.run(burst)
    #expect(script.run("wait") == "rejected:2 !burstRejected")
    #expect(script.machine.length == 2)
  }

  @Test("a burst with a digit outside AllowedDigits is rejected whole")
  func burstWithDisallowedDigit() {
    var script = EntryScript(bursty { $0.allowedDigits = digitSet("1234") })
    script.run("@0 1 2 3 9 ENTER")
    #expect(script.run("wait") == "rejected:0 !burstRejected")
    #expect(script.codes.isEmpty)
  }

  @Test("Bursts=reject rejects any burst, even of allowed digits")
  func burstsReject() {
    var script = EntryScript(bursty { $0.bursts = .reject })
    script.run("@0 5 +0.001 6")
    #expect(script.run("wait") == "rejected:0 !burstRejected")
    #expect(script.machine.phase == .idle)
    script.run("@1 5 @2 6")
    #expect(script.run("wait") == "changed:2 screen")
  }

  @Test("a burst that completes a fixed-length code ignores the extra digits")
  func burstCompletesFixedLength() {
    var script = EntryScript(bursty { $0.length = 4 })
    script.run("@0 1 2 3 4 5 6 ENTER")
    #expect(script.run("wait") == "started:1 changed:2 changed:3 submit:1234 screen")
    #expect(script.machine.phase == .checking)
    #expect(script.codes == ["1234"])
    #expect(script.machine.nextDeadline == nil)
  }

  @Test("a burst finishing a started fixed-length code submits at its length")
  func burstFinishesStartedCode() {
    var script = EntryScript(bursty { $0.length = 4 })
    script.run("@0 9 @1 8 @2 7 6 5")
    #expect(script.run("wait") == "changed:3 submit:9876 screen")
  }

  @Test("a burst longer than MaxLength keeps the first digits and reports full")
  func burstBeyondMaxLength() {
    var script = EntryScript(bursty { $0.maxLength = 4 })
    script.run("@0 1 2 3 4 5 6")
    #expect(script.run("wait") == "started:1 changed:2 changed:3 changed:4 !full !full screen")
    #expect(script.machine.length == 4)
  }

  @Test("a flood of keys inside the interval is rejected whole")
  func floodRejected() {
    var script = EntryScript(bursty())
    script.run("@0")
    for _ in 0..<500 { script.run("+0.001 KP1") }
    #expect(script.run("wait") == "rejected:0 !burstRejected")
    #expect(script.machine.length == 0)
  }

  @Test("timeouts wait for a pending key pressed before them")
  func timeoutsWaitForPendingKey() {
    var script = EntryScript(bursty())
    script.run("@0 1 wait")
    #expect(script.machine.nextDeadline == script.at("5"))
    script.run("@4.995 2")
    #expect(script.run("@5 tick") == "")
    #expect(script.run("@5.010 tick") == "changed:2 screen")
    #expect(script.machine.nextDeadline == script.at("9.995"))
  }

  @Test("a pending key pressed after the timeout starts a new entry")
  func keyAfterTimeoutStartsAnew() {
    var script = EntryScript(bursty())
    script.run("@0 1 wait")
    #expect(script.run("@5.001 2") == "timeout:0 screen")
    #expect(script.run("wait") == "started:1 screen")
  }

  @Test("SYN_DROPPED drops a pending burst")
  func droppedDropsBurst() {
    var script = EntryScript(bursty())
    script.run("@0 1 2 3")
    #expect(script.run("dropped") == "")
    #expect(script.machine.nextDeadline == nil)
    #expect(script.run("@1 tick") == "")
    #expect(script.machine.length == 0)
  }

  @Test("a revealed entry re-masks when a rejected burst arrives")
  func rejectedBurstMasks() {
    var script = EntryScript(bursty())
    script.run("@0 1 wait @1 KPDOT wait")
    #expect(script.machine.isRevealed)
    script.run("@2 2 KEY_A")
    #expect(script.run("wait") == "rejected:1 !burstRejected screen")
    #expect(!script.machine.isRevealed)
  }
}
