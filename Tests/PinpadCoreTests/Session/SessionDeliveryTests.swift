import PinpadCore
import Testing

/// docs/protocol.md, "Socket: delivery": a code waits for a client up to
/// DeliveryTimeoutSec, then for a verdict up to VerdictTimeoutSec; the first verdict
/// wins.
@Suite struct SessionDeliveryTests {
  @Test("a code goes to the connected clients at once and its digits are wiped")
  func deliveredAtOnce() {
    var s = SessionScript()
    let trace = s.run("clients=2 1 2 3 4 ENTER")
    #expect(
      trace
        == "entry(default,started,1) entry(default,changed,2) entry(default,changed,3) "
        + "entry(default,changed,4) notify(STATUS=Checking attempt ab-1) code(ab-1,default)")
    #expect(s.sent.map(\.digits) == ["1234"])
    #expect(s.sent[0].buffer.count == 0, "the digits outlived their delivery")
    #expect(s.session.attempts.attempts.map(\.delivered) == [true])
    // The verdict timeout runs from the delivery.
    #expect(s.session.nextWakeup == s.now + .seconds(10))
  }

  @Test("with no client the code is held, one warning, and sent when a client is ready")
  func heldUntilAClientIsReady() {
    var s = SessionScript()
    s.run("1 2 3 4 ENTER")
    #expect(s.sent.isEmpty)
    #expect(s.logs.filter { $0.1.contains("no controller connected") }.count == 1)
    #expect(s.session.nextWakeup == s.now + .seconds(5))
    s.run("+2 ready")
    #expect(s.sent.isEmpty, "sent to nobody")
    #expect(s.logs.filter { $0.1.contains("no controller connected") }.count == 1)
    #expect(s.run("+1 clients=1 ready") == "code(ab-1,default)")
    #expect(s.sent.map(\.digits) == ["1234"])
    #expect(s.session.nextWakeup == s.now + .seconds(10))
  }

  @Test("no client within DeliveryTimeoutSec: the code is wiped, the screen says so")
  func deliveryTimeout() {
    var s = SessionScript()
    s.run("1 2 3 4 ENTER")
    let held = s.session.attempts.attempts[0].digits!
    #expect(s.run("+4.999 tick") == "")
    #expect(s.run("+0.001 tick") == "notify(STATUS=Waiting for keys)")
    #expect(held.count == 0)
    #expect(s.logged("attempt ab-1: no controller took it, code wiped"))
    #expect(s.session.attempts.attempts.isEmpty)
    s.run("end")
    #expect(s.lastFrame?.phase == .unavailable)
    // Neither granted nor denied: no failure counted, and the keypad takes a new code.
    #expect(s.session.machine("default")?.lockoutState.failures == 0)
    #expect(s.run("clients=1 5 6 7 8 ENTER").hasSuffix("code(ab-2,default)"))
    #expect(s.sent.map(\.digits) == ["5678"])
  }

  @Test("no verdict within VerdictTimeoutSec: a timeout verdict, and a late one refused")
  func verdictTimeout() {
    var s = SessionScript({ $0.socket.verdictTimeout = .seconds(3) })
    s.run("clients=1 1 2 3 4 ENTER")
    #expect(s.run("+2.999 tick") == "")
    #expect(
      s.run("+0.001 tick")
        == "verdict(ab-1,timeout) drop(ab-1) notify(STATUS=Waiting for keys)")
    #expect(s.logged("attempt ab-1: no verdict within 3.0 s"))
    s.run("end")
    #expect(s.lastFrame?.phase == .noResponse)
    #expect(s.run("granted") == "reply#1:error(attempt ab-1 timed out: no verdict within 3 s)")
    #expect(s.session.machine("default")?.lockoutState.failures == 0)
  }

  @Test("the first verdict wins; a second and an unknown id get an error")
  func firstVerdictWins() {
    var s = SessionScript()
    s.run("clients=1 1 2 3 4 ENTER")
    #expect(
      s.run("denied")
        == "verdict(ab-1,denied) drop(ab-1) persist(default=1/0) notify(STATUS=Waiting for keys)")
    #expect(s.run("granted") == "reply#1:error(attempt ab-1 was already decided)")
    #expect(s.run("granted:zz-9") == "reply#1:error(unknown attempt id)")
    #expect(s.logged("attempt ab-1 on keypad default: denied by client 1"))
    s.run("end")
    #expect(s.lastFrame?.phase == .denied(message: nil, attemptsLeft: 2))
  }

  @Test("a denial's reason goes into the verdict event; the screen shows a plain denial")
  func denialReasonPassesThrough() {
    var s = SessionScript()
    s.run("clients=1 1 2 3 4 ENTER")
    let trace = s.send(
      .verdict(id: s.id("ab-1"), granted: false, message: nil, reason: "expired", client: 1))
    #expect(trace.contains("verdict(ab-1,denied,expired)"), "\(trace)")
    s.run("end")
    #expect(s.lastFrame?.phase == .denied(message: nil, attemptsLeft: 2))
  }

  @Test("a verdict's message is shown for three seconds, a key ends it sooner")
  func verdictShownThenGone() {
    var s = SessionScript()
    s.run("clients=1 1 2 3 4 ENTER")
    s.send(.verdict(id: s.id("ab-1"), granted: true, message: "Welcome", client: 1))
    s.run("end")
    #expect(s.lastFrame?.phase == .granted(message: "Welcome"))
    #expect(s.session.nextWakeup == s.now + .seconds(3))
    s.run("wait end")
    #expect(s.lastFrame?.phase == .idle)
    s.send(.verdict(id: "ab-2", granted: true, message: nil, client: 1))
    s.run("5 6 7 8 ENTER granted end")
    #expect(s.lastFrame?.phase == .granted(message: nil))
    s.run("+1 9 end")
    #expect(s.lastFrame?.phase == .entering)
    #expect(s.lastFrame?.filled == 1)
  }

  @Test("no log line holds a digit of the code, at debug level too")
  func noDigitInTheLog() {
    var s = SessionScript()
    s.run("7 3 9 8 5 ENTER +6 tick clients=1 6 0 6 2 6 ENTER denied status quit")
    #expect(s.logs.count > 5)
    for (_, line) in s.logs {
      #expect(!line.contains("73985") && !line.contains("60626"), "\(line)")
      #expect(!line.contains("KEY_7") && !line.contains("KEY_6"), "\(line)")
    }
    #expect(s.replies.count == 1, "the status answer")
    let lines = s.broadcasts.map(\.line) + s.replies.map(\.message.line)
    for line in lines { #expect(!line.contains("73985") && !line.contains("60626"), "\(line)") }
  }
}
