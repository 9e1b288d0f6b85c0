import PinpadCore
import Testing

@testable import PinpadControlCore

@Suite struct RecordingLimitsTests {
  @Test("an outage is said once when it starts and once when it ends")
  func outageSaidOnce() {
    var outage = Outage()
    var said: [Bool] = []
    said.append(outage.worked())  // working from the start is nothing to say
    for _ in 0..<3 { said.append(outage.failed()) }
    let ongoing = outage.isOngoing
    for _ in 0..<2 { said.append(outage.worked()) }
    said.append(outage.failed())  // a new outage is said again
    #expect(said == [false, true, false, false, true, false, true])
    #expect(ongoing)
  }

  @Test("locked denials: a burst at once, then one a second, and the held ones counted")
  func lockedDenialBurstThenOneASecond() {
    var limit = LockedDenialLimit()
    var recorded = 0
    for _ in 0..<150 where limit.admit(at: 1_000_000).record { recorded += 1 }
    let skipped = limit.skipped
    // Then one every 100 ms for 10 s: one in ten recorded (one a second), each saying
    // how many were held back before it.
    var held: [Int] = []
    for k: Int64 in 1...100 {
      let admitted = limit.admit(at: 1_000_000 + 100 * k)
      if admitted.record { held.append(admitted.held) }
    }
    #expect(recorded == LockedDenialLimit.burst)
    #expect(skipped == 50)
    #expect(held == [50] + Array(repeating: 9, count: 9))
    // A quiet two minutes fill the bucket again.
    var again = 0
    for _ in 0..<150 where limit.admit(at: 1_200_000).record { again += 1 }
    #expect(again == LockedDenialLimit.burst)
    #expect(
      LockedDenialLimit.heldLine(3).plain
        == "3 denials while locked were answered but not recorded (a flood)")
  }
}
