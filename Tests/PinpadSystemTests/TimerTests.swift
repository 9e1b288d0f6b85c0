import Glibc
import PinpadCore
import PinpadSystem
import Testing

/// The daemon's deadline timer (a real timerfd): set only when the deadline comes earlier.
@Suite struct TimerTests {
  static func fires(_ timer: Timer, within milliseconds: Int32) -> Bool {
    var p = pollfd(fd: timer.fd.rawValue, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, milliseconds) == 1
  }

  @Test func aLaterDeadlineLeavesTheEarlierOneSetAndAnEarlierOneReplacesIt() throws {
    let timer = try Timer()
    let now = Clock.monotonic()
    timer.fire(by: now + .milliseconds(30))
    timer.fire(by: now + .seconds(60))  // later: the timer still fires at 30 ms
    #expect(Self.fires(timer, within: 5000))
    timer.acknowledge()
    // Fired and read: the next deadline is set, even a later one.
    timer.fire(by: Clock.monotonic() + .seconds(60))
    #expect(!Self.fires(timer, within: 100))
    timer.fire(by: Clock.monotonic() + .milliseconds(20))  // earlier: replaces it
    #expect(Self.fires(timer, within: 5000))
    timer.acknowledge()
    timer.fire(by: nil)  // nothing due: nothing set
    #expect(!Self.fires(timer, within: 100))
  }

  @Test func armingWhatIsSetAlreadyKeepsIt() throws {
    let timer = try Timer()
    let at = Clock.monotonic() + .milliseconds(30)
    timer.arm(at: at)
    timer.arm(at: at)
    #expect(Self.fires(timer, within: 5000))
    timer.acknowledge()
    timer.arm(at: at)  // fired: set again (in the past, so at once)
    #expect(Self.fires(timer, within: 5000))
    timer.acknowledge()
    timer.arm(at: nil)
    #expect(!Self.fires(timer, within: 100))
  }
}
