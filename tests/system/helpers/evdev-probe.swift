// evdev-probe: a small driver of pinpadd's own device code (PinpadInput) for system
// tests in the QEMU guest. Not part of the package: tests/system/lib/build-probe.sh links
// it against the objects of a `swift build --target PinpadInput`.
//
//   evdev-probe list [TOKEN...]           --list-devices lines (udev/sysfs, else open);
//                                         TOKENs: Match= of one section "test"
//   evdev-probe enumerate                 UdevMonitor.enumerate() with udev properties
//   evdev-probe read PATH COUNT [grab]    print COUNT key events (never digits' meaning:
//                                         test keyboards only), optionally grabbed
//   evdev-probe watch PATH SECONDS [grab] [after=FILE] [late=FILE [switched]]
//                     [until=KEY:VALUE]
//                                         print key events, drops and grab outcomes
//                                         for at most SECONDS; with after=FILE, neither
//                                         read nor grab until FILE exists (lets the
//                                         kernel queue fill); with late=FILE, open(2)
//                                         at once but make the EvdevDevice only once
//                                         FILE exists (with switched, switch the
//                                         clock first: as if an event came between
//                                         EvdevDevice's own read and switch); with
//                                         until=, stop after that key event (e.g.
//                                         until=KEY_KP8:0)
//   evdev-probe monitor SECONDS [COUNT]   UdevMonitor changes for up to SECONDS
//                                         (stops after COUNT changes)
// Every line starts with the CLOCK_MONOTONIC time in seconds.
import Glibc
import PinpadCore
import PinpadInput
import PinpadSystem

/// Unbuffered, so lines reach the console in order with the guest's other output.
func emit(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
}

/// Seconds with three decimals (no Foundation here).
func fixed(_ value: Double, _ places: Int = 3) -> String {
  var scale = 1.0
  for _ in 0..<places { scale *= 10 }
  let scaled = Int((value * scale).rounded())
  let whole = scaled / Int(scale)
  let frac = String(abs(scaled) % Int(scale))
  return (scaled < 0 && whole == 0 ? "-" : "") + "\(whole)."
    + String(repeating: "0", count: places - frac.count) + frac
}

func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func say(_ text: String) {
  emit(fixed(now()) + " " + text)
}

func describe(_ identity: DeviceIdentity, _ caps: DeviceCapabilities) -> String {
  let props = identity.properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
  return
    "\(identity.devnode) name=\"\(identity.name)\" id=\(identity.usbID) bus=\(identity.bustype) "
    + "phys=\(identity.phys) digits=\(caps.hasDigitKeys) touch=\(caps.hasTouch) "
    + "pointer=\(caps.hasPointer) virtual=\(identity.isVirtual) tags=\(identity.tags.sorted()) "
    + "links=\(identity.links.count) \(props.joined(separator: " "))"
}

func waitReadable(_ fd: Int32, timeoutMs: Int32) -> Int16 {
  var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
  let rc = poll(&entry, 1, timeoutMs)
  return rc > 0 ? entry.revents : 0
}

extension String {
  /// "KEY_KP8:0" as the probe prints it: "KEY_KP8 0".
  func replacingColon() -> String { String(map { $0 == ":" ? " " : $0 }) }
}

let args = CommandLine.arguments
switch args.count > 1 ? args[1] : "" {
case "list":
  let known = UdevDevices.enumerate(initialisedOnly: false)
  var sections: [KeypadConfig] = []
  if args.count > 2 {
    var section = KeypadConfig(name: "test")
    section.match = Array(args.dropFirst(2))
    sections.append(section)
  }
  let matcher = KeypadMatcher(keypads: sections)
  for path in inputEventNodes() {
    if let (identity, caps) = describeInputNode(path, udevDevices: known) {
      emit(DeviceListing(device: identity, capabilities: caps, matcher: matcher).line)
    } else {
      emit("\(path)\t?")
    }
  }
case "enumerate":
  let start = now()
  let monitor = try UdevMonitor()
  let devices = monitor.enumerate()
  say("enumerated \(devices.count) in \(fixed(now() - start))s")
  for (identity, caps) in devices { say(describe(identity, caps)) }
case "read" where args.count >= 4:
  let device = try EvdevDevice(path: args[2])
  say("opened \(describe(device.identity, device.capabilities)) down=\(device.keysDown)")
  let wantGrab = args.count > 4 && args[4] == "grab"
  var grabbed = false
  var remaining = Int(args[3]) ?? 1
  if wantGrab {
    let outcome = device.grabWhenIdle()
    grabbed = outcome == .grabbed
    say("grab \(outcome)")
  }
  while remaining > 0 {
    let revents = waitReadable(device.fd.rawValue, timeoutMs: 60_000)
    if revents == 0 {
      say("timeout")
      exit(2)
    }
    let batch = device.readEvents()
    for event in batch.events where event.type == InputEvent.keyType {
      let latency = now() - Double(event.time.nanoseconds) / 1e9
      say(
        "key \(KeyCode(event.code).name) \(event.value) latency=\(fixed(latency, 4))"
      )
      if event.value == 1 { remaining -= 1 }
    }
    if batch.dropped { say("dropped") }
    if batch.gone {
      say("gone")
      exit(3)
    }
    if wantGrab && !grabbed {
      let outcome = device.grabWhenIdle()
      grabbed = outcome == .grabbed
      if outcome != .notYet { say("grab \(outcome)") }
    }
  }
  device.close()
  say("closed")
case "watch" where args.count >= 4:
  let options = args.dropFirst(4)
  let device: EvdevDevice
  if let late = options.first(where: { $0.hasPrefix("late=") }).map({ String($0.dropFirst(5)) }) {
    // open(2) now, EvdevDevice (clock switch, state snapshot) once FILE exists: events
    // queued in between predate the snapshot.
    let fd = open(args[2], O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { fatalError("open \(args[2]): errno \(errno)") }
    say("raw-opened")
    while access(late, F_OK) != 0 { usleep(20_000) }
    if options.contains("switched") {
      // EVIOCSCLOCKID = _IOW('E', 0xa0, int): flushes the queue and queues a SYN_DROPPED;
      // EvdevDevice's own switch to the same clock then flushes nothing.
      var clock = CLOCK_MONOTONIC
      guard ioctl(fd, 0x4004_45a0, &clock) == 0 else { fatalError("EVIOCSCLOCKID: errno \(errno)") }
      say("switched")
    }
    device = try EvdevDevice(adopting: OwnedDescriptor(taking: fd), path: args[2])
  } else {
    device = try EvdevDevice(path: args[2])
  }
  let wantGrab = options.contains("grab")
  let after = options.first { $0.hasPrefix("after=") }.map { String($0.dropFirst(6)) }
  let until = options.first { $0.hasPrefix("until=") }.map { String($0.dropFirst(6)) }
  say("opened \(device.identity.devnode) down=\(device.keysDown)")
  var grabbed = false
  func tryGrab() {
    guard wantGrab && !grabbed else { return }
    let outcome = device.grabWhenIdle()
    grabbed = outcome == .grabbed
    say("grab \(outcome)")
  }
  if let after {
    while access(after, F_OK) != 0 { usleep(50_000) }
    say("reading")
  }
  tryGrab()
  let deadline = now() + (Double(args[3]) ?? 5)
  var done = false
  while !done && now() < deadline {
    guard waitReadable(device.fd.rawValue, timeoutMs: Int32(max(1, (deadline - now()) * 1000))) != 0
    else { continue }
    let batch = device.readEvents()
    if batch.dropped { say("dropped") }
    for event in batch.events where event.type == InputEvent.keyType {
      let line = "\(KeyCode(event.code).name) \(event.value)"
      say("key " + line)
      if let until, line == until.replacingColon() { done = true }
    }
    if batch.gone {
      say("gone")
      break
    }
    tryGrab()
  }
  if !done && until != nil { say("deadline before \(until!)") }
  say("keys down at end \(device.keysDown)")
case "monitor" where args.count >= 3:
  let monitor = try UdevMonitor()
  let deadline = now() + (Double(args[2]) ?? 10)
  var remaining = args.count > 3 ? Int(args[3]) ?? Int.max : Int.max
  say("monitoring")
  while remaining > 0 && now() < deadline {
    let left = Int32(max(1, (deadline - now()) * 1000))
    guard waitReadable(monitor.fd.rawValue, timeoutMs: left) != 0 else { continue }
    while let change = monitor.receive() {
      switch change {
      case .added(let identity, let caps): say("added \(describe(identity, caps))")
      case .changed(let identity, let caps): say("changed \(describe(identity, caps))")
      case .removed(let identity): say("removed \(identity.devnode) \(identity.syspath)")
      }
      remaining -= 1
    }
  }
default:
  print("usage: evdev-probe list | enumerate | read PATH COUNT [grab] | monitor SECONDS [COUNT]")
  exit(64)
}
