import PinpadCore
import Testing

@testable import PinpadControlCore

private let t0 = Instant.zero
private func at(_ seconds: Int64) -> Instant { t0 + .seconds(seconds) }

private func machine() -> ConnectionState {
  ConnectionState(
    backoff: Backoff(initial: .seconds(1), ceiling: .seconds(30)), connectTimeout: .seconds(10))
}

/// The broker connection of `MQTTSession` as a value (docs/protocol.md, "MQTT:
/// connection"): every transition, the backoff, reconnecting, and what is fatal.
@Suite struct ConnectionStateTests {
  @Test func aNewConnectionIsIdleWithNothingDue() {
    let state = machine()
    #expect(state.phase == .idle)
    #expect(!state.isConnected && !state.hasLiveClient)
    #expect(state.due(now: at(100)) == nil && state.nextDeadline == nil)
  }

  @Test func anAttemptWaitsForTheConnackUntilItsDeadline() {
    var state = machine()
    state.attempted(now: at(1))
    #expect(state.phase == .connecting(deadline: at(11)))
    #expect(state.hasLiveClient && !state.isConnected)
    #expect(state.nextDeadline == at(11))
    #expect(state.due(now: at(10)) == nil)
    #expect(state.due(now: at(11)) == .connectTimedOut)
  }

  @Test func anAcceptedConnectionIsConnected() {
    var state = machine()
    state.attempted(now: t0)
    state.accepted(now: at(1))
    #expect(state.phase == .connected(since: at(1)))
    #expect(state.isConnected && state.hasLiveClient && state.hasEverConnected)
    #expect(state.nextDeadline == nil)
  }

  @Test func aConnackWithoutAnAttemptChangesNothing() {
    var state = machine()
    state.accepted(now: t0)
    #expect(state.phase == .idle && state.connections == 0)
  }

  @Test func theFirstFailureIsAWarningAndTheNextOnesAreQuiet() {
    var state = machine()
    let r1 = state.failed("broker: refused", permanent: false, now: t0)
    #expect(r1 == .warning("broker: refused; retrying with backoff up to 30 s"))
    #expect(state.phase == .waiting(retryAt: at(1)))
    let r2 = state.failed("broker: refused", permanent: false, now: at(1))
    #expect(r2 == .debug("broker: refused"))
    #expect(state.failures == 2)
  }

  @Test func retriesBackOffFromOneSecondDoublingToThirty() {
    var state = machine()
    var waits: [Int64] = []
    var now = t0
    for _ in 0..<7 {
      _ = state.failed("x", permanent: false, now: now)
      guard case .waiting(let retryAt) = state.phase else {
        Issue.record("not waiting")
        return
      }
      waits.append((retryAt - now).components.seconds)
      #expect(state.due(now: retryAt) == .retry)
      now = retryAt
      state.attempted(now: now)
    }
    #expect(waits == [1, 2, 4, 8, 16, 30, 30])
  }

  @Test func aSuccessResetsTheBackoffAndTheWarning() {
    var state = machine()
    for second in 0..<4 { _ = state.failed("x", permanent: false, now: at(Int64(second) * 100)) }
    state.attempted(now: at(500))
    state.accepted(now: at(500))
    #expect(state.failures == 0)
    let r3 = state.disconnected(code: 7, now: at(600))
    #expect(r3)
    #expect(state.phase == .waiting(retryAt: at(601)))
    let r4 = state.failed("x", permanent: false, now: at(601))
    #expect(r4 == .warning("x; retrying with backoff up to 30 s"))
  }

  @Test func aPermanentFailureBeforeAnyConnectionIsFatal() {
    var state = machine()
    state.attempted(now: t0)
    let r5 = state.failed("bad password", permanent: true, now: t0)
    #expect(r5 == .fatal("bad password"))
    #expect(state.phase == .fatal("bad password") && state.fatalMessage == "bad password")
    #expect(!state.hasLiveClient && state.due(now: at(1000)) == nil)
    // Nothing brings it back.
    state.attempted(now: at(1))
    state.fellBack(now: at(1))
    state.close()
    #expect(state.phase == .fatal("bad password"))
  }

  @Test func aPermanentFailureAfterAConnectionIsRetried() {
    var state = machine()
    state.attempted(now: t0)
    state.accepted(now: t0)
    _ = state.disconnected(code: 0, now: at(1))
    state.attempted(now: at(2))
    let r6 = state.failed("bad password", permanent: true, now: at(2))
    #expect(r6 != .fatal("bad password"))
    #expect(state.fatalMessage == nil)
    if case .waiting = state.phase {} else { Issue.record("not waiting: \(state.phase)") }
  }

  @Test func losingAWorkingConnectionWaitsOneStepAndSaysSo() {
    var state = machine()
    state.attempted(now: t0)
    state.accepted(now: t0)
    let r7 = state.disconnected(code: 7, now: at(5))
    #expect(r7)
    #expect(state.phase == .waiting(retryAt: at(6)))
    #expect(!state.hasLiveClient)
  }

  @Test func aCloseBeforeTheConnackEndsEarlyAndIsNotALoss() {
    var state = machine()
    state.attempted(now: t0)
    let r8 = state.disconnected(code: 14, now: at(1))
    #expect(!r8)
    #expect(state.phase == .endedEarly(code: 14))
    #expect(!state.hasLiveClient && state.due(now: at(100)) == nil)
    _ = state.failed("closed before answering", permanent: false, now: at(1))
    #expect(state.phase == .waiting(retryAt: at(2)))
  }

  @Test func aDisconnectWhileWaitingChangesNothing() {
    var state = machine()
    _ = state.failed("x", permanent: false, now: t0)
    let r9 = state.disconnected(code: 7, now: at(0))
    #expect(!r9)
    #expect(state.phase == .waiting(retryAt: at(1)))
  }

  @Test func fallingBackToMQTT311RetriesAtOnceWithoutSpendingTheBackoff() {
    var state = machine()
    state.attempted(now: t0)
    state.fellBack(now: at(3))
    #expect(state.phase == .waiting(retryAt: at(3)))
    #expect(state.due(now: at(3)) == .retry)
    state.attempted(now: at(3))
    _ = state.failed("x", permanent: false, now: at(4))
    #expect(state.phase == .waiting(retryAt: at(5)), "the first backoff step is still 1 s")
  }

  @Test func aTimedOutConnectIsAFailureLikeAnother() {
    var state = machine()
    state.attempted(now: t0)
    #expect(state.due(now: at(10)) == .connectTimedOut)
    let r10 = state.failed("no answer to CONNECT", permanent: false, now: at(10))
    #expect(r10 == .warning("no answer to CONNECT; retrying with backoff up to 30 s"))
    #expect(state.phase == .waiting(retryAt: at(11)))
  }

  @Test func closeEndsEverything() {
    var state = machine()
    state.attempted(now: t0)
    state.accepted(now: t0)
    state.close()
    #expect(state.phase == .closed && !state.isConnected)
    let r11 = state.disconnected(code: 0, now: at(1))
    #expect(!r11)
    state.attempted(now: at(1))
    #expect(state.phase == .closed && state.due(now: at(100)) == nil)
  }
}
