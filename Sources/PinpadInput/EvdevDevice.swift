import CLibevdev
import CPinpadShim
import Glibc
import PinpadCore
import PinpadSystem

/// One evdev input device read through libevdev: its identity and capabilities, its key
/// state, an exclusive grab taken only while no key is down, and non-blocking reads that
/// resynchronise after `SYN_DROPPED`.
///
/// Poll `fd` for readability (level-triggered) and call `readEvents()` each time it is
/// readable; on `gone` stop polling and `close()` it (off the key-handling path if you
/// can: closing an evdev fd can take tens of milliseconds).
///
/// Keys already down when the device is opened, or when it is resynchronised after
/// dropped events, are not presses: their events are left out until they are released.
public final class EvdevDevice {
  /// The node it was opened from (`/dev/input/event3`, or a by-id link).
  public let path: String
  /// The descriptor to poll; -1 once closed.
  public private(set) var fd: FileDescriptor
  /// Who the device is: the kernel's name, ids and phys, plus udev's data when given.
  public let identity: DeviceIdentity
  public let capabilities: DeviceCapabilities
  /// The device is grabbed exclusively (EVIOCGRAB): no console or other reader sees it.
  public private(set) var isGrabbed = false
  /// It was opened read-write: its LEDs and beeper can be driven.
  public private(set) var isWritable = false
  /// Most events returned by one `readEvents()`, so a flooding device cannot starve the
  /// loop; the fd stays readable and the next call continues.
  public var maxEventsPerRead = 512

  private let source: any EvdevSource
  private var isClosed = false
  /// The LEDs it has, each with whether it was on when it was opened.
  public let ledsAtOpen: [UInt16: Bool]
  /// Keys down at open or at a resync: their events are dropped until they are released.
  private var heldKeys: Set<UInt16> = []
  private let staleDropsBefore: Instant?

  /// Opens an event node (`O_RDONLY|O_NONBLOCK|O_CLOEXEC`) with CLOCK_MONOTONIC
  /// timestamps. `udev` adds syspath, links, properties and tags to the identity.
  /// `writable`: `O_RDWR` instead, so that its LEDs and beeper can be driven (`setLED`,
  /// `sound`); a node that cannot be opened so is opened read-only (`isWritable` false).
  public convenience init(
    path: String, udev: DeviceIdentity? = nil, writable: Bool = false
  ) throws(SystemError) {
    var node = OwnedDescriptor.none
    if writable {
      do { node = try OwnedDescriptor.open(path, O_RDWR | O_NONBLOCK) } catch {}
    }
    if !node.isOpen {
      do { node = try OwnedDescriptor.open(path, O_RDONLY | O_NONBLOCK) } catch {
        throw SystemError("open", path: path, error)
      }
    }
    try self.init(adopting: node, path: path, udev: udev)
  }

  /// Takes over `node`, an event node opened `O_RDONLY|O_NONBLOCK` (closed on failure):
  /// what `init(path:udev:)` does after its open(). Events already queued on it predate
  /// the device's state snapshot and are not read.
  public convenience init(
    adopting node: consuming OwnedDescriptor, path: String, udev: DeviceIdentity? = nil
  ) throws(SystemError) {
    let fd = node.fd.rawValue
    // Before libevdev reads the state: the shim reads away what was queued since open()
    // (it predates the snapshot) and switches the clock. An event that comes between that
    // read and the switch is flushed by it, and the kernel queues a SYN_DROPPED stamped no
    // later than now, readable only after the next report. It predates libevdev's
    // snapshot below, so the kernel lost nothing read after it: remember when, so it is
    // not reported as a drop. (libevdev's resync still discards what is queued when it is
    // read, e.g. the report that made it readable; tests/system/cases/evdev-kernel.sh,
    // part 4b, makes that happen.)
    let writable = fcntl(fd, F_GETFL) & O_ACCMODE == O_RDWR
    var staleDropsBefore: Instant?
    if pinpad_evdev_use_monotonic_clock(fd) == 0 { staleDropsBefore = Clock.monotonic() }
    var device: OpaquePointer?
    let rc = libevdev_new_from_fd(fd, &device)
    guard rc == 0, let device else {
      throw SystemError("libevdev_new_from_fd", path: path, Errno(-rc))  // `node` closes
    }
    var identity = udev
    if identity == nil {
      // No udev: still know where it sits in sysfs, for `isVirtual`.
      identity = DeviceIdentity(devnode: path, syspath: sysfsPath(ofCharacterDevice: fd) ?? "")
    }
    self.init(
      path: path, source: LibevdevSource(node, device: device), udev: identity,
      writable: writable, staleDropsBefore: staleDropsBefore)
  }

  /// A device read through `source` (`init(adopting:)`'s is libevdev on the node), found
  /// at `path`. `udev`'s identity is completed from the source; `writable`: its LEDs and
  /// beeper can be driven. `staleDropsBefore`: a SYN_DROPPED stamped before this instant
  /// is the clock switch's (see `init(adopting:)`), not a loss since the state snapshot.
  public init(
    path: String, source: any EvdevSource, udev: DeviceIdentity?, writable: Bool = false,
    staleDropsBefore: Instant? = nil
  ) {
    self.path = path
    isWritable = writable
    self.staleDropsBefore = staleDropsBefore
    self.source = source
    self.fd = FileDescriptor(rawValue: source.fd)
    var identity = udev ?? DeviceIdentity(devnode: path)
    identity.name = source.name
    identity.phys = source.phys
    (identity.vendor, identity.product, identity.bustype) = source.ids
    self.identity = identity
    let has = source.has
    let clicks = has(EV_KEY, Int(BTN_TOUCH)) || has(EV_KEY, Int(BTN_LEFT))
    self.capabilities = DeviceCapabilities(
      hasDigitKeys: DeviceCapabilities.digitKeyCodes.contains { has(EV_KEY, $0) },
      hasTouch: ((has(EV_ABS, Int(ABS_X)) && has(EV_ABS, Int(ABS_Y)))
        || (has(EV_ABS, Int(ABS_MT_POSITION_X)) && has(EV_ABS, Int(ABS_MT_POSITION_Y))))
        && clicks,
      hasPointer: has(EV_REL, Int(REL_X)) && has(EV_REL, Int(REL_Y))
        && has(EV_KEY, Int(BTN_LEFT)))
    var leds: [UInt16: Bool] = [:]
    for code in 0...Int(LED_MAX) where has(EV_LED, code) {
      leds[UInt16(code)] = source.ledIsOn(code)
    }
    self.ledsAtOpen = leds
    self.heldKeys = Set(keysDown.map(\.rawValue))
  }

  deinit { close() }

  /// The device reports this event type and code (`libevdev_has_event_code`).
  public func supports(type: UInt16, code: UInt16) -> Bool {
    !isClosed && source.has(type: Int32(type), code: Int(code))
  }

  /// An absolute axis' range (absinfo minimum and maximum), nil when it has no such axis.
  public func absoluteRange(_ code: UInt16) -> AxisRange? {
    guard !isClosed, source.has(type: EV_ABS, code: Int(code)) else { return nil }
    return source.absoluteRange(Int(code))
  }

  /// How `PointerTracker` should read this device's position: absolute axes when it has
  /// `ABS_X`/`ABS_Y`, else multi-touch positions, else relative motion; nil for none.
  public var pointerAxes: PointerTracker.Axes? {
    let x = UInt16(ABS_X)
    let y = UInt16(ABS_Y)
    let mtX = UInt16(ABS_MT_POSITION_X)
    let mtY = UInt16(ABS_MT_POSITION_Y)
    if let rx = absoluteRange(x), let ry = absoluteRange(y) { return .absolute(x: rx, y: ry) }
    if let rx = absoluteRange(mtX), let ry = absoluteRange(mtY) {
      return .multitouch(x: rx, y: ry)
    }
    if supports(type: UInt16(EV_REL), code: UInt16(REL_X)),
      supports(type: UInt16(EV_REL), code: UInt16(REL_Y))
    {
      return .relative
    }
    return nil
  }

  /// The keys down in libevdev's view of the device (updated by every event read).
  public var keysDown: [KeyCode] {
    guard !isClosed else { return [] }
    return (0...Int(KEY_MAX)).compactMap { code in
      source.isDown(code) ? KeyCode(UInt16(code)) : nil
    }
  }

  public enum GrabOutcome: Equatable, Sendable {
    case grabbed
    /// A key is down: grabbing now would leave it stuck for other readers (a console
    /// would autorepeat it). Try again after the next `readEvents()`; never spin.
    case notYet
    case failed(SystemError)
  }

  /// Takes the device exclusively (EVIOCGRAB) if no key is down in libevdev's view and
  /// no event is waiting to be read (so that view is the kernel's). Call it after
  /// `readEvents()`; `notYet` leaves the fd readable or a key down, so the next read
  /// comes from an event, never from a loop.
  ///
  /// It never asks the kernel for its key state (EVIOCGKEY): that ioctl discards the key
  /// events queued for this reader (the kernel's `evdev_handle_get_val` flushes them), so
  /// a key pressed between the last read and the query would be lost, release and all.
  public func grabWhenIdle() -> GrabOutcome {
    guard !isClosed else {
      return .failed(SystemError("EVIOCGRAB", path: path, Errno(EBADF)))
    }
    if isGrabbed { return .grabbed }
    if !keysDown.isEmpty || pollNow(fd.rawValue) & Int16(POLLIN) != 0 { return .notYet }
    let rc = source.grab(true)
    if rc != 0 {
      return .failed(SystemError("EVIOCGRAB", path: path, Errno(-rc)))
    }
    isGrabbed = true
    return .grabbed
  }

  /// Gives the grab back (EVIOCGRAB 0). Closing does it too.
  public func ungrab() {
    guard !isClosed, isGrabbed else { return }
    _ = source.grab(false)
    isGrabbed = false
  }

  /// Reads what is pending without blocking (`libevdev_next_event`, normal mode). After
  /// `SYN_DROPPED` it drains libevdev's resync in sync mode, reports `dropped`, and treats
  /// keys down after the resync like keys down at open. ENODEV, EBADF or a hang-up report
  /// `gone`.
  public func readEvents() -> InputBatch {
    var batch = InputBatch()
    guard !isClosed else {
      batch.gone = true
      return batch
    }
    let statusSync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
    var syncing = false
    var event = input_event()
    while batch.events.count < maxEventsPerRead {
      let rc = source.next(sync: syncing, &event)
      if syncing {
        // The resync diff: libevdev's state is now current; its events are not presses.
        if rc == 0 || rc == statusSync || rc == -EINTR { continue }
        if rc == -ENODEV || rc == -EBADF {
          batch.gone = true
          break
        }
        // -EAGAIN: the diff is drained. Anything else: libevdev keeps its old state and
        // carries on in normal mode. Keys down now are held (their presses may have been
        // lost); a held key that went up during the drop is held no longer.
        syncing = false
        heldKeys = Set(keysDown.map(\.rawValue))
        continue
      }
      if rc == 0 {
        if let kept = filtered(event) { batch.events.append(kept) }
      } else if rc == statusSync {
        // libevdev resyncs either way; only a drop after the snapshot lost anything.
        let stale = staleDropsBefore.map { time(of: event) < $0.nanoseconds } ?? false
        if !stale {
          batch.dropped = true
          if batch.droppedIndex == nil { batch.droppedIndex = batch.events.count }
        }
        syncing = true
      } else if rc == -EINTR {
        continue
      } else if rc == -EAGAIN {
        break
      } else {
        // -ENODEV (unplugged), -EBADF, -EIO, -EINVAL (a torn record): nothing more will
        // come from this fd.
        batch.gone = true
        break
      }
    }
    if !batch.gone && batch.events.count < maxEventsPerRead {
      // A pipe's writer closing reads as EOF, which libevdev reports as -EAGAIN: ask poll.
      let revents = pollNow(fd.rawValue)
      if revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && revents & Int16(POLLIN) == 0 {
        batch.gone = true
      }
    }
    return batch
  }

  /// Ungrabs, frees libevdev and closes the fd. Safe to call twice.
  public func close() {
    guard !isClosed else { return }
    ungrab()
    source.close()
    isClosed = true
    fd = FileDescriptor(rawValue: -1)
  }

  // MARK: LEDs and beeper (pinpadd.conf(5), Feedback=)

  /// The LED that feedback shows on: the first of NumLock, CapsLock and ScrollLock that
  /// was off when the device was opened, else the first of them it has, else the
  /// device's first; nil for none (or a read-only device).
  public var feedbackLED: UInt16? {
    guard isWritable, !isClosed else { return nil }
    let locks = [LED_NUML, LED_CAPSL, LED_SCROLLL].map { UInt16($0) }.filter {
      ledsAtOpen[$0] != nil
    }
    return locks.first { ledsAtOpen[$0] == false } ?? locks.first ?? ledsAtOpen.keys.min()
  }

  /// An LED's state as the device has it: read at open, then kept by the events read.
  public func ledIsOn(_ code: UInt16) -> Bool { !isClosed && source.ledIsOn(Int(code)) }

  /// What the device sounds with: a tone of a given pitch (SND_TONE), else a bell
  /// (SND_BELL, on or off); nil for none (or a read-only device).
  public enum Beeper: Equatable, Sendable { case tone, bell }
  public var beeper: Beeper? {
    guard isWritable, !isClosed else { return nil }
    if source.has(type: EV_SND, code: Int(SND_TONE)) { return .tone }
    if source.has(type: EV_SND, code: Int(SND_BELL)) { return .bell }
    return nil
  }

  /// Turns an LED on or off (an EV_LED write and its SYN_REPORT; the kernel drops a
  /// write that changes nothing).
  public func setLED(_ code: UInt16, on: Bool) -> SystemError? {
    send(type: EV_LED, code: code, value: on ? 1 : 0)
  }

  /// Sounds `hz` (0: silence) until told otherwise: a tone has no length of its own.
  /// A bell sounds while `hz` is not 0.
  public func sound(hz: Int32) -> SystemError? {
    switch beeper {
    case .tone: send(type: EV_SND, code: UInt16(SND_TONE), value: max(0, hz))
    case .bell: send(type: EV_SND, code: UInt16(SND_BELL), value: hz > 0 ? 1 : 0)
    case nil: SystemError("write", path: path, Errno(EBADF))
    }
  }

  private func send(type: Int32, code: UInt16, value: Int32) -> SystemError? {
    guard !isClosed, isWritable else { return SystemError("write", path: path, Errno(EBADF)) }
    var event = input_event()
    event.type = UInt16(type)
    event.code = code
    event.value = value
    var report = input_event()
    report.type = UInt16(EV_SYN)
    report.code = UInt16(SYN_REPORT)
    let rc = source.write([event, report])
    return rc == 0 ? nil : SystemError("write", path: path, Errno(-rc))
  }

  private func filtered(_ event: input_event) -> InputEvent? {
    // What was written to the device (ours or another writer's) comes back to a grabbing
    // reader: never a key.
    if event.type == UInt16(EV_LED) || event.type == UInt16(EV_SND) { return nil }
    if event.type == UInt16(EV_KEY), heldKeys.contains(event.code) {
      if event.value == 0 { heldKeys.remove(event.code) }
      return nil
    }
    return InputEvent(
      time: Instant(nanoseconds: time(of: event)), type: event.type, code: event.code,
      value: event.value)
  }

  private func time(of event: input_event) -> Int64 {
    Int64(event.time.tv_sec) * 1_000_000_000 + Int64(event.time.tv_usec) * 1000
  }
}

extension InputEvent {
  /// The event as the kernel's `struct input_event` bytes (24 on 64-bit Linux), e.g. to
  /// write into the pipe a test's `EvdevSource` reads.
  public var kernelRecord: [UInt8] {
    var raw = input_event()
    raw.time.tv_sec = Int(time.nanoseconds / 1_000_000_000)
    raw.time.tv_usec = Int(time.nanoseconds % 1_000_000_000 / 1000)
    raw.type = type
    raw.code = code
    raw.value = value
    return withUnsafeBytes(of: &raw) { Array($0) }
  }
}

/// `/sys/devices/.../eventN` for an open character device, through `/sys/dev/char/MAJ:MIN`.
func sysfsPath(ofCharacterDevice fd: Int32) -> String? {
  var info = stat()
  guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFCHR else { return nil }
  let dev = UInt64(info.st_rdev)
  let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff)
  let minor = (dev & 0xff) | ((dev >> 12) & ~0xff)
  guard let resolved = realpath("/sys/dev/char/\(major):\(minor)", nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}
