import Glibc
import PinpadCore
import PinpadInputTestSupport
import PinpadSystem
import Testing

@testable import PinpadInput

/// A device reading raw `struct input_event` records from a pipe: the test plays the kernel.
private final class FakeKernel {
  let device: EvdevDevice
  let source: RecordPipeSource
  /// The kernel's side of the pipe; closed by `unplug()`.
  private let writer: OpenDescriptor
  var writeEnd: Int32 { writer.fd }

  init(keysDown: [KeyCode] = [], staleDropsBefore: Instant? = nil) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
    writer = OpenDescriptor(OwnedDescriptor(taking: fds[1]))
    let identity = DeviceIdentity(
      devnode: "/dev/input/event7", name: "Test Keypad", vendor: 0x1234, product: 0x5678,
      bustype: 3, phys: "usb-test-1/input0")
    let keys = (0...9).map { KeyCode.keypad(UInt8($0)) } + [.kpEnter, .backspace]
    source = RecordPipeSource(
      OwnedDescriptor(taking: fds[0]), identity: identity, keys: keys, keysDown: keysDown)
    device = EvdevDevice(
      path: identity.devnode, source: source, udev: identity, staleDropsBefore: staleDropsBefore)
  }

  deinit { device.close() }

  func send(_ type: UInt16, _ code: UInt16, _ value: Int32, at ms: Int64 = 1000) {
    let record = InputEvent(
      time: Instant(nanoseconds: ms * 1_000_000), type: type, code: code, value: value
    ).kernelRecord
    #expect(record.count == 24)
    #expect(record.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) } == 24)
  }

  func key(_ key: KeyCode, _ value: Int32, at ms: Int64 = 1000) {
    send(1, key.rawValue, value, at: ms)
    send(0, 0, 0, at: ms)
  }

  func unplug() { writer.close() }

  /// EV_KEY events read, as (key, value).
  func keys(_ batch: InputBatch) -> [String] {
    batch.events.compactMap { event in event.key.map { "\($0.name)=\(event.value)" } }
  }
}

@Suite struct EvdevDeviceTests {
  @Test func identityAndCapabilitiesComeFromTheDevice() {
    let kernel = FakeKernel()
    #expect(kernel.device.identity.name == "Test Keypad")
    #expect(kernel.device.identity.usbID == "1234:5678")
    #expect(kernel.device.identity.phys == "usb-test-1/input0")
    #expect(kernel.device.capabilities == DeviceCapabilities(hasDigitKeys: true))
  }

  @Test func keyEventsAreReadWithTheirTimes() {
    let kernel = FakeKernel()
    kernel.key(.keypad(1), 1, at: 1500)
    kernel.key(.keypad(1), 0, at: 1600)
    let batch = kernel.device.readEvents()
    #expect(kernel.keys(batch) == ["KEY_KP1=1", "KEY_KP1=0"])
    #expect(batch.events.first?.time == Instant(nanoseconds: 1_500_000_000))
    #expect(batch.events.count == 4)  // two EV_KEY, two SYN_REPORT
    #expect(!batch.dropped && !batch.gone)
  }

  @Test func nothingPendingReadsAsAnEmptyBatch() {
    let kernel = FakeKernel()
    #expect(kernel.device.readEvents() == InputBatch())
  }

  @Test func keysDownFollowTheEventsRead() {
    let kernel = FakeKernel()
    kernel.key(.keypad(5), 1)
    _ = kernel.device.readEvents()
    #expect(kernel.device.keysDown == [.keypad(5)])
    kernel.key(.keypad(5), 0)
    _ = kernel.device.readEvents()
    #expect(kernel.device.keysDown == [])
  }

  @Test func aKeyHeldAtOpenIsNotAPress() {
    let kernel = FakeKernel(keysDown: [.keypad(3)])
    kernel.key(.keypad(3), 2)  // autorepeat of the held key
    kernel.key(.keypad(3), 0)  // its release
    kernel.key(.keypad(3), 1)  // a real press afterwards
    kernel.key(.keypad(3), 0)
    let batch = kernel.device.readEvents()
    #expect(kernel.keys(batch) == ["KEY_KP3=1", "KEY_KP3=0"])
  }

  @Test func otherKeysPassWhileOneIsHeldFromOpen() {
    let kernel = FakeKernel(keysDown: [.keypad(3)])
    kernel.key(.keypad(4), 1)
    kernel.key(.keypad(4), 0)
    #expect(kernel.keys(kernel.device.readEvents()) == ["KEY_KP4=1", "KEY_KP4=0"])
  }

  @Test func synDroppedReportsDroppedAndReadingContinues() {
    let kernel = FakeKernel()
    kernel.key(.keypad(1), 1)
    kernel.key(.keypad(1), 0)
    kernel.send(0, 3, 0)  // SYN_DROPPED
    kernel.key(.keypad(2), 1)
    kernel.key(.keypad(2), 0)
    let first = kernel.device.readEvents()
    #expect(first.dropped)
    #expect(!first.gone)
    kernel.key(.keypad(6), 1)
    kernel.key(.keypad(6), 0)
    let second = kernel.device.readEvents()
    #expect(!second.dropped)
    #expect(kernel.keys(second) == ["KEY_KP6=1", "KEY_KP6=0"])
  }

  @Test func theClockSwitchsDropIsNotReportedButALaterOneIs() {
    // The kernel stamps the SYN_DROPPED of EVIOCSCLOCKID no later than the switch.
    let kernel = FakeKernel(staleDropsBefore: Instant(nanoseconds: 5_000_000_000))
    kernel.send(0, 3, 0, at: 4_990)  // SYN_DROPPED from the switch
    kernel.key(.keypad(1), 1, at: 5_100)
    kernel.key(.keypad(1), 0, at: 5_120)
    let first = kernel.device.readEvents()
    #expect(!first.dropped)
    #expect(first.droppedIndex == nil)
    kernel.send(0, 3, 0, at: 6_000)  // a real overflow, after the snapshot
    kernel.key(.keypad(2), 1, at: 6_010)
    #expect(kernel.device.readEvents().dropped)
  }

  @Test func aKeyDownAcrossADropIsNotAPressAfterTheResync() {
    let kernel = FakeKernel()
    kernel.key(.keypad(8), 1)
    kernel.send(0, 3, 0)  // SYN_DROPPED while KP8 is down
    let batch = kernel.device.readEvents()
    #expect(batch.dropped)
    kernel.key(.keypad(8), 2)
    kernel.key(.keypad(8), 0)
    kernel.key(.keypad(9), 1)
    #expect(kernel.keys(kernel.device.readEvents()) == ["KEY_KP9=1"])
  }

  @Test func aHeldKeyReleasedDuringADropIsAPressAgainAfterwards() {
    let kernel = FakeKernel(keysDown: [.keypad(3)])
    kernel.source.keysAfterDrop = []  // KP3's release was among the dropped events
    kernel.send(0, 3, 0)  // SYN_DROPPED
    #expect(kernel.device.readEvents().dropped)
    #expect(kernel.device.keysDown == [])
    kernel.key(.keypad(3), 1)
    #expect(kernel.keys(kernel.device.readEvents()) == ["KEY_KP3=1"])
  }

  @Test func aKeyPressedDuringADropIsNotAPress() {
    let kernel = FakeKernel()
    kernel.source.keysAfterDrop = [Int(KeyCode.keypad(4).rawValue)]
    kernel.send(0, 3, 0)  // SYN_DROPPED; KP4 went down among the dropped events
    #expect(kernel.device.readEvents().dropped)
    kernel.key(.keypad(4), 0)
    kernel.key(.keypad(5), 1)
    #expect(kernel.keys(kernel.device.readEvents()) == ["KEY_KP5=1"])
  }

  @Test func aWritableDeviceOnASourceReadsRecordsToo() {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    let writer = OpenDescriptor(OwnedDescriptor(taking: fds[1]))
    let device = RecordPipeSource(
      OwnedDescriptor(taking: fds[0]),
      identity: DeviceIdentity(devnode: "/dev/input/event9", name: "Sim"), keys: [.keypad(1)]
    ).device()
    let record = InputEvent(time: .zero, type: 1, code: KeyCode.keypad(1).rawValue, value: 1)
      .kernelRecord
    _ = record.withUnsafeBytes { write(writer.fd, $0.baseAddress, $0.count) }
    #expect(device.readEvents().events.map(\.key) == [.keypad(1)])
    #expect(device.capabilities.hasDigitKeys)
    device.close()
  }

  @Test func removalIsReportedOnceAndTheFdHangsUp() {
    let kernel = FakeKernel()
    kernel.key(.keypad(1), 1)
    kernel.unplug()
    let batch = kernel.device.readEvents()
    #expect(kernel.keys(batch) == ["KEY_KP1=1"])
    #expect(batch.gone)
  }

  @Test func aRemovedDeviceDoesNotBusyLoop() {
    let kernel = FakeKernel()
    kernel.unplug()
    // Each read returns at once with gone: a caller that stops polling on gone never spins.
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    #expect(kernel.device.readEvents().gone)
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &end)
    #expect(end.tv_sec - start.tv_sec < 1)
  }

  @Test func aTornRecordWaitsForTheRestThenEndsTheDeviceAtEOF() {
    let kernel = FakeKernel()
    let half: [UInt8] = Array(repeating: 0, count: 10)
    _ = half.withUnsafeBytes { write(kernel.writeEnd, $0.baseAddress, $0.count) }
    #expect(kernel.device.readEvents() == InputBatch())
    kernel.unplug()
    #expect(kernel.device.readEvents().gone)
  }

  @Test func aClosedDeviceIsGone() {
    let kernel = FakeKernel()
    kernel.device.close()
    #expect(kernel.device.readEvents().gone)
    #expect(kernel.device.fd.rawValue == -1)
    kernel.device.close()
  }

  @Test func grabWaitsUntilNoKeyIsDown() {
    let kernel = FakeKernel(keysDown: [.keypad(2)])
    #expect(kernel.device.grabWhenIdle() == .notYet)
    kernel.key(.keypad(2), 0)
    _ = kernel.device.readEvents()
    // Once idle the grab is attempted: a pipe cannot be grabbed, so it fails with ENOTTY.
    guard case .failed(let error) = kernel.device.grabWhenIdle() else {
      Issue.record("expected the ioctl to be tried")
      return
    }
    #expect(error.errno == Errno(ENOTTY))
    #expect(!kernel.device.isGrabbed)
  }

  @Test func grabWaitsUntilQueuedEventsAreRead() {
    // A key pressed and released since the last read: grabbing now would be fine for
    // the key state, but asking the kernel for it (EVIOCGKEY) would discard the queue.
    let kernel = FakeKernel()
    kernel.key(.keypad(5), 1)
    kernel.key(.keypad(5), 0)
    #expect(kernel.device.grabWhenIdle() == .notYet)
    #expect(kernel.keys(kernel.device.readEvents()) == ["KEY_KP5=1", "KEY_KP5=0"])
    guard case .failed(let error) = kernel.device.grabWhenIdle() else {
      Issue.record("expected the ioctl to be tried once the queue was read")
      return
    }
    #expect(error.errno == Errno(ENOTTY))
  }

  @Test func aLongFloodIsReadInBoundedBatches() {
    let kernel = FakeKernel()
    kernel.device.maxEventsPerRead = 10
    for _ in 0..<10 {
      kernel.key(.keypad(0), 1)
      kernel.key(.keypad(0), 0)
    }
    let first = kernel.device.readEvents()
    #expect(first.events.count == 10)
    #expect(!first.gone)
    var total = first.events.count
    while case let batch = kernel.device.readEvents(), !batch.events.isEmpty {
      total += batch.events.count
    }
    #expect(total == 40)
  }
}
