import PinpadCore
import PinpadSystem

/// Real keypads through evdev: `--input auto` (udev discovery and hot-plug) or an
/// explicit device path that is followed when it goes away and comes back.
///
/// The udev monitor is enabled before the enumeration, so a keypad plugged in between
/// is seen (duplicates are dropped by device node). A device that goes away is removed
/// from epoll at once and closed after the current batch of events, since closing an
/// evdev descriptor can take tens of milliseconds.
public final class KeypadDevices: InputSource {
  public enum Mode: Equatable {
    case discover
    case path(String)
  }

  private final class OpenDevice {
    let device: EvdevDevice
    let keypad: String
    var grabPending: Bool
    init(device: EvdevDevice, keypad: String, grabPending: Bool) {
      self.device = device
      self.keypad = keypad
      self.grabPending = grabPending
    }
  }

  public let mode: Mode
  public var name: String {
    if case .path(let path) = mode { return path }
    return "auto"
  }
  private var matcher: KeypadMatcher
  /// Keypad for an explicit path that no `[Keypad]` section matches.
  private let fallbackKeypad: String
  private let log: Logger
  private var monitor: UdevMonitor?
  private var retryTimer: Timer?
  private var open: [String: OpenDevice] = [:]
  /// The explicit device as first seen: a node that comes back must be the same device.
  private var expected: DeviceIdentity?
  private var loop: EventLoop?
  private var deliver: (String, SourceEvent) -> Void = { _, _ in }

  public init(mode: Mode, keypads: [KeypadConfig], fallbackKeypad: String, log: Logger) {
    self.mode = mode
    self.matcher = KeypadMatcher(keypads: keypads)
    self.fallbackKeypad = fallbackKeypad
    self.log = log
  }

  public func start(
    loop: EventLoop, deliver: @escaping (_ keypad: String, SourceEvent) -> Void
  ) throws(InputError) {
    self.loop = loop
    self.deliver = deliver
    do {
      let monitor = try UdevMonitor()
      try loop.watch(FileDescriptor(rawValue: monitor.fd), .readable) { [unowned self] _ in
        self.receiveChanges()
      }
      self.monitor = monitor
    } catch {
      log.warning("udev is not available (\(error)): keypads plugged in later are not seen")
    }
    switch mode {
    case .discover:
      let found =
        monitor?.enumerate()
        ?? inputEventNodes().compactMap { describeInputNode($0, udevDevices: []) }
      for (identity, capabilities) in found { consider(identity, capabilities) }
      if open.isEmpty { log.info("no keypad found yet; waiting for one to be plugged in") }
    case .path(let path):
      guard FileSystem.exists(path) else {
        log.warning("\(path) is not there; waiting for it")
        startRetrying()
        return
      }
      try openExplicit(path: path, udev: nil)
    }
  }

  /// SIGHUP: new `[Keypad]` sections apply to devices plugged in from now on.
  public func reconfigure(keypads: [KeypadConfig]) {
    matcher = KeypadMatcher(keypads: keypads)
  }

  // MARK: Discovery

  private func consider(_ identity: DeviceIdentity, _ capabilities: DeviceCapabilities) {
    guard open[identity.devnode] == nil else { return }
    guard let assignment = matcher.keypad(for: identity, capabilities: capabilities) else {
      return
    }
    do {
      let device = try EvdevDevice(path: identity.devnode, udev: identity)
      add(device, keypad: assignment.name, grab: assignment.grab)
    } catch {
      log.warning("keypad \(assignment.name): cannot open \(identity.devnode): \(error)")
    }
  }

  private func openExplicit(path: String, udev: DeviceIdentity?) throws(InputError) {
    let device: EvdevDevice
    do { device = try EvdevDevice(path: path, udev: udev) } catch {
      throw InputError("--input \(path): \(error)")
    }
    if let expected, !device.identity.isSameDevice(as: expected) {
      log.warning("\(path) is now \"\(device.identity.name)\", not the keypad it was; not using it")
      device.close()
      return
    }
    expected = device.identity
    let assignment = matcher.keypad(for: device.identity, capabilities: device.capabilities)
    add(
      device, keypad: assignment?.name ?? fallbackKeypad,
      grab: assignment?.grab ?? matcher.keypads.first?.grab ?? true)
  }

  private func add(_ device: EvdevDevice, keypad: String, grab: Bool) {
    let path = device.path
    let entry = OpenDevice(device: device, keypad: keypad, grabPending: grab)
    do {
      try loop?.watch(FileDescriptor(rawValue: device.fd), .readable) { [unowned self] _ in
        self.read(path)
      }
    } catch {
      log.warning("keypad \(keypad): cannot watch \(path): \(error)")
      device.close()
      return
    }
    open[path] = entry
    stopRetrying()
    tryGrab(entry)
    log.info("keypad \(keypad): using \(path) (\(device.identity.name))")
    deliver(keypad, .deviceAdded(path: path))
  }

  /// EVIOCGRAB once no key is down; until then, tried again at each event.
  private func tryGrab(_ entry: OpenDevice) {
    guard entry.grabPending else { return }
    switch entry.device.grabWhenIdle() {
    case .grabbed:
      entry.grabPending = false
      log.debug("keypad \(entry.keypad): \(entry.device.path) grabbed")
    case .notYet:
      break
    case .failed(let error):
      entry.grabPending = false
      log.warning("keypad \(entry.keypad): cannot grab \(entry.device.path): \(error)")
    }
  }

  private func read(_ path: String) {
    guard let entry = open[path] else { return }
    let batch = entry.device.readEvents()
    let split = batch.dropped ? (batch.droppedIndex ?? 0) : batch.events.count
    for (index, event) in batch.events.enumerated() {
      if index == split { deliver(entry.keypad, .dropped(time: event.time)) }
      if event.type == InputEvent.keyType {
        deliver(entry.keypad, .key(KeyCode(event.code), value: event.value, time: event.time))
      }
    }
    if batch.dropped, split >= batch.events.count {
      deliver(entry.keypad, .dropped(time: batch.events.last?.time ?? Clock.monotonic()))
    }
    tryGrab(entry)
    if batch.gone { remove(path, reason: "went away") }
  }

  private func remove(_ path: String, reason: String) {
    guard let entry = open.removeValue(forKey: path) else { return }
    loop?.unwatch(FileDescriptor(rawValue: entry.device.fd))
    log.info("keypad \(entry.keypad): \(path) \(reason)")
    deliver(entry.keypad, .deviceRemoved(path: path))
    // Closing an evdev fd can block for tens of milliseconds: after this batch.
    loop?.defer { entry.device.close() }
    if case .path = mode, monitor == nil { startRetrying() }
  }

  // MARK: Hot-plug

  private func receiveChanges() {
    while let change = monitor?.receive() {
      switch change {
      case .added(let identity, let capabilities):
        handleArrival(identity, capabilities)
      case .changed(let identity, let capabilities):
        if open[identity.devnode] != nil,
          matcher.keypad(for: identity, capabilities: capabilities) == nil, mode == .discover
        {
          remove(identity.devnode, reason: "no longer matches a keypad")
        } else {
          handleArrival(identity, capabilities)
        }
      case .removed(let identity):
        remove(identity.devnode, reason: "unplugged")
      }
    }
  }

  private func handleArrival(_ identity: DeviceIdentity, _ capabilities: DeviceCapabilities) {
    switch mode {
    case .discover:
      consider(identity, capabilities)
    case .path(let path):
      guard open.isEmpty, identity.devnode == path || identity.links.contains(path) else {
        return
      }
      do { try openExplicit(path: path, udev: identity) } catch {
        log.warning("\(error)")
      }
    }
  }

  /// Without udev, an explicit path is looked for once a second until it is back.
  private func startRetrying() {
    guard retryTimer == nil, monitor == nil, case .path(let path) = mode, let loop else { return }
    do {
      let timer = try Timer()
      try loop.watch(timer.fd, .readable) { [unowned self, unowned timer] _ in
        timer.acknowledge()
        guard self.open.isEmpty, FileSystem.exists(path) else { return }
        do { try self.openExplicit(path: path, udev: nil) } catch {
          self.log.debug("\(error)")
        }
      }
      timer.arm(at: Clock.monotonic() + .seconds(1), interval: .seconds(1))
      retryTimer = timer
    } catch {
      log.warning("cannot watch for \(path) to come back: \(error)")
    }
  }

  private func stopRetrying() {
    if let retryTimer { loop?.unwatch(retryTimer.fd) }
    retryTimer = nil
  }

  public func close() {
    stopRetrying()
    if let monitor { loop?.unwatch(FileDescriptor(rawValue: monitor.fd)) }
    monitor = nil
    for (_, entry) in open {
      loop?.unwatch(FileDescriptor(rawValue: entry.device.fd))
      entry.device.close()
    }
    open = [:]
  }
}
