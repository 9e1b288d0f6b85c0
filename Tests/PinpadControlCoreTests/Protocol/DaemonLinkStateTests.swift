import PinpadCore
import Testing

@testable import PinpadControlCore

private let t0 = Instant.zero
private func at(_ seconds: Int64) -> Instant { t0 + .seconds(seconds) }

/// A client's link to pinpadd's socket as a value (docs/protocol.md, "Socket: hello",
/// "MQTT: connection"): greeting, refusal, loss, retry every second, stop.
@Suite struct DaemonLinkStateTests {
  @Test func aNewLinkWantsAConnectionAtOnce() {
    let link = DaemonLinkState()
    #expect(link.phase == .stopped(warned: false))
    #expect(link.isDue(now: t0) && !link.isOpen && link.retryAt == nil)
  }

  @Test func helloMakesAConnectedLinkReady() {
    var link = DaemonLinkState()
    link.connected()
    #expect(link.phase == .greeting && link.isOpen && !link.isReady)
    #expect(!link.isDue(now: at(100)))
    let r1 = link.received(.hello(protocolVersion: 1, version: "0.2.0"))
    #expect(r1 == .greeted)
    #expect(link.isReady)
    let r2 = link.received(.error(reason: "unknown attempt id"))
    #expect(r2 == .line)
    #expect(link.isReady)
  }

  @Test func anErrorBeforeTheGreetingRefusesTheLinkForGood() {
    var link = DaemonLinkState()
    link.connected()
    let r3 = link.received(.error(reason: "forbidden"))
    #expect(r3 == .refused("forbidden"))
    #expect(link.refusal == "forbidden" && !link.isOpen)
    #expect(!link.isDue(now: at(1000)))
    link.stop()
    let r4 = link.closed(now: at(1))
    #expect(!r4)
    link.connected()
    #expect(link.phase == .refused("forbidden"))
  }

  @Test func theFirstFailedConnectIsSaidAndTheRestAreQuiet() {
    var link = DaemonLinkState()
    let r5 = link.connectFailed(now: t0)
    #expect(r5)
    #expect(link.phase == .waiting(retryAt: at(1), warned: true))
    #expect(!link.isDue(now: t0) && link.isDue(now: at(1)))
    let r6 = link.connectFailed(now: at(1))
    #expect(!r6)
    #expect(link.retryAt == at(2), "every second, not doubling")
  }

  @Test func aLostReadyLinkRetriesInASecondAndSaysTheDeviceWentOffline() {
    var link = DaemonLinkState()
    link.connected()
    _ = link.received(.hello(protocolVersion: 1, version: "x"))
    let r7 = link.closed(now: at(5))
    #expect(r7)
    #expect(link.phase == .waiting(retryAt: at(6), warned: false))
    // Away again: the first failure after a loss is said again.
    let r8 = link.connectFailed(now: at(6))
    #expect(r8)
  }

  @Test func aLinkLostBeforeItsGreetingWasNotReady() {
    var link = DaemonLinkState()
    link.connected()
    let r9 = link.closed(now: t0)
    #expect(!r9)
    #expect(link.retryAt == at(1))
  }

  @Test func stopHangsUpAndKeepsWhetherTheAbsenceWasSaid() {
    var link = DaemonLinkState()
    _ = link.connectFailed(now: t0)
    link.stop()
    #expect(link.phase == .stopped(warned: true))
    #expect(link.isDue(now: t0), "the broker is back: connect at once")
    let r10 = link.connectFailed(now: t0)
    #expect(!r10, "said already")
    link.connected()
    link.stop()
    #expect(link.phase == .stopped(warned: false))
  }

  @Test func aCustomBackoffDoublesBetweenAttempts() {
    var link = DaemonLinkState(backoff: Backoff(initial: .seconds(1), ceiling: .seconds(4)))
    var waits: [Int64] = []
    var now = t0
    for _ in 0..<4 {
      _ = link.connectFailed(now: now)
      let next = link.retryAt!
      waits.append((next - now).components.seconds)
      now = next
    }
    #expect(waits == [1, 2, 4, 4])
    link.connected()
    _ = link.closed(now: now)
    #expect(link.retryAt == now + .seconds(1), "a connection resets the backoff")
  }

  @Test func connectedOnlyFromStoppedOrWaiting() {
    var link = DaemonLinkState()
    link.connected()
    _ = link.received(.hello(protocolVersion: 1, version: "x"))
    link.connected()
    #expect(link.isReady)
  }
}
