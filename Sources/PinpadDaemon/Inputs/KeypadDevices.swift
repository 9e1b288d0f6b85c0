import PinpadCore
import PinpadInput
import PinpadProgram
import PinpadSystem

/// Real keypads through evdev: `--input auto` (udev discovery and hot-plug) or an
/// explicit device path that is followed when it goes away and comes back.
///
/// With a `pointerScreen` (the on-screen keypad is on and the display has pixels),
/// discovery also takes touchscreens and pointers (see `PointerMatcher`) and turns their
/// events into `.pointer` actions in that screen's pixels.
///
/// The udev monitor is enabled before the enumeration, so a keypad plugged in between
/// is seen (duplicates are dropped by device node). A device that goes away is removed
/// from epoll at once and closed after the current batch of events, since closing an
/// evdev descriptor can take tens of milliseconds.
public final class KeypadDevices: InputSource, FeedbackDevices {
  public enum Mode: Equatable {
    case discover
    case path(String)
  }

  /// The keypad name pointer events carry when they feed the keypad the screen shows.
  public static let screenKeypad = ""

  private final class OpenDevice {
    let device: EvdevDevice
    let keypad: String
    var grabPending: Bool
    /// Set for a touchscreen or pointer of the on-screen keypad.
    var tracker: PointerTracker?
    /// The keypad's card reader (`CardReader=`): its keys are cards, never a PIN.
    let cardReader: Bool
    init(
      device: EvdevDevice, keypad: String, grabPending: Bool, tracker: PointerTracker? = nil,
      cardReader: Bool = false
    ) {
      self.device = device
      self.keypad = keypad
      self.grabPending = grabPending
      self.tracker = tracker
      self.cardReader = cardReader
    }
    /// How the log names it: "keypad door", "keypad door card reader", or
    /// "on-screen keypad" for a pointer.
    var role: String {
      tracker != nil
        ? "on-screen keypad" : cardReader ? "keypad \(keypad) card reader" : "keypad \(keypad)"
    }
  }

  public let mode: Mode
  public var name: String {
    if case .path(let path) = mode { return path }
    return "auto"
  }
  private var matcher: KeypadMatcher
  private var pointerMatcher: PointerMatcher
  /// The display's size when touch and pointer devices are wanted, else nil.
  private let pointerScreen: (width: Int, height: Int)?
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

  public init(
    mode: Mode, keypads: [KeypadConfig], fallbackKeypad: String, log: Logger,
    pointerScreen: (width: Int, height: Int)? = nil
  ) {
    self.mode = mode
    self.matcher = KeypadMatcher(keypads: keypads)
    self.pointerMatcher = PointerMatcher(keypads: keypads)
    self.pointerScreen = pointerScreen
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
      try loop.watch(monitor.fd, .readable) { [unowned self] _ in
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
    pointerMatcher = PointerMatcher(keypads: keypads)
  }

  // MARK: Feedback

  /// Feedback=auto (the default, a keypad without a section too): its devices are
  /// opened read-write, for their LEDs and beeper.
  private func showsFeedback(_ keypad: String) -> Bool {
    (matcher.keypads.first { $0.name == keypad }?.feedback ?? .auto) == .auto
  }

  var feedbackDevices: [(keypad: String, device: EvdevDevice)] {
    open.values.filter { $0.tracker == nil }.map { ($0.keypad, $0.device) }
  }

  // MARK: Discovery

  /// A pointer for the on-screen keypad, when it is on and the device is one (an
  /// explicit `--input` path included: it is then never taken for a keypad).
  private func pointer(_ identity: DeviceIdentity, _ capabilities: DeviceCapabilities)
    -> PointerAssignment?
  {
    guard pointerScreen != nil else { return nil }
    return pointerMatcher.pointer(for: identity, capabilities: capabilities)
  }

  private func consider(_ identity: DeviceIdentity, _ capabilities: DeviceCapabilities) {
    guard open[identity.devnode] == nil else { return }
    if let pointer = pointer(identity, capabilities) {
      addPointer(identity, pointer)
      return
    }
    guard let assignment = matcher.keypad(for: identity, capabilities: capabilities) else {
      return
    }
    do {
      let device = try EvdevDevice(
        path: identity.devnode, udev: identity, writable: showsFeedback(assignment.name))
      add(
        device, keypad: assignment.name, grab: assignment.grab,
        cardReader: assignment.isCardReader)
    } catch {
      // Without group input (the package's default) only devices udev tagged for
      // pinpadd are readable: say how to hand this one over.
      let hint =
        error.errno == .accessDenied
        ? "; to use it, a site udev rule gives it ENV{PINPADD_KEYPAD}=NAME or"
          + " TAG+=\"pinpadd\" (70-pinpadd.rules)"
        : ""
      log.warning(
        "keypad \(assignment.name): cannot open \(identity.devnode) (\(identity.name)): \(error)\(hint)"
      )
    }
  }

  private func openExplicit(path: String, udev: DeviceIdentity?) throws(InputError) {
    let device: EvdevDevice
    // Which keypad it feeds is known only once it is open: writable if it may be one
    // that shows feedback.
    let writable =
      showsFeedback(fallbackKeypad) || matcher.keypads.contains { $0.feedback == .auto }
    do { device = try EvdevDevice(path: path, udev: udev, writable: writable) } catch {
      throw InputError("--input \(path): \(error)")
    }
    if let expected, !device.identity.isSameDevice(as: expected) {
      log.warning("\(path) is now \"\(device.identity.name)\", not the keypad it was; not using it")
      device.close()
      return
    }
    expected = device.identity
    let caps = device.capabilities
    let named =
      caps.hasDigitKeys || !(caps.hasTouch || caps.hasPointer)
      ? nil : PointerAssignment(keypad: nil, grab: false)
    if let pointer = pointer(device.identity, caps) ?? named,
      let screen = pointerScreen, let axes = device.pointerAxes
    {
      // A touchscreen named on the command line, virtual or not: like one discovered.
      let tracker = PointerTracker(axes: axes, width: screen.width, height: screen.height)
      add(
        device, keypad: pointer.keypad ?? Self.screenKeypad, grab: pointer.grab,
        tracker: tracker)
      return
    }
    let assignment = matcher.keypad(for: device.identity, capabilities: device.capabilities)
    add(
      device, keypad: assignment?.name ?? fallbackKeypad,
      grab: assignment?.grab ?? matcher.keypads.first?.grab ?? true,
      cardReader: assignment?.isCardReader ?? false)
  }

  private func addPointer(_ identity: DeviceIdentity, _ assignment: PointerAssignment) {
    guard let screen = pointerScreen else { return }
    let device: EvdevDevice
    do { device = try EvdevDevice(path: identity.devnode, udev: identity) } catch {
      log.warning("on-screen keypad: cannot open \(identity.devnode): \(error)")
      return
    }
    guard let axes = device.pointerAxes else {
      log.debug("on-screen keypad: \(identity.devnode) has no usable axes")
      device.close()
      return
    }
    let tracker = PointerTracker(axes: axes, width: screen.width, height: screen.height)
    add(
      device, keypad: assignment.keypad ?? Self.screenKeypad, grab: assignment.grab,
      tracker: tracker)
  }

  private func add(
    _ device: EvdevDevice, keypad: String, grab: Bool, tracker: PointerTracker? = nil,
    cardReader: Bool = false
  ) {
    let path = device.path
    let entry = OpenDevice(
      device: device, keypad: keypad, grabPending: grab, tracker: tracker,
      cardReader: cardReader)
    do {
      try loop?.watch(device.fd, .readable) { [unowned self] _ in
        self.read(path)
      }
    } catch {
      log.warning("\(entry.role): cannot watch \(path): \(error)")
      device.close()
      return
    }
    open[path] = entry
    stopRetrying()
    tryGrab(entry)
    if let tracker {
      let feeds = keypad == Self.screenKeypad ? "the screen's keypad" : "keypad \(keypad)"
      log.info(
        "on-screen keypad: using \(path) (\(device.identity.name), \(tracker.axes)) for \(feeds)"
      )
    } else {
      log.info("\(entry.role): using \(path) (\(device.identity.name))")
      deliver(keypad, .deviceAdded(path: path, role: cardReader ? .cardReader : .keypad))
    }
  }

  /// EVIOCGRAB once no key is down; until then, tried again at each event.
  private func tryGrab(_ entry: OpenDevice) {
    guard entry.grabPending else { return }
    switch entry.device.grabWhenIdle() {
    case .grabbed:
      entry.grabPending = false
      log.debug("\(entry.role): \(entry.device.path) grabbed")
    case .notYet:
      break
    case .failed(let error):
      entry.grabPending = false
      log.warning("\(entry.role): cannot grab \(entry.device.path): \(error)")
    }
  }

  private func read(_ path: String) {
    guard let entry = open[path] else { return }
    let batch = entry.device.readEvents()
    if entry.tracker != nil {
      readPointer(entry, batch)
      return
    }
    if entry.cardReader {
      readCardReader(entry, batch)
      return
    }
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

  /// A card reader's keys go to the keypad's card slot; lost events drop the read.
  private func readCardReader(_ entry: OpenDevice, _ batch: InputBatch) {
    if batch.dropped { deliver(entry.keypad, .cardDropped) }
    for event in batch.events where event.type == InputEvent.keyType {
      deliver(entry.keypad, .cardKey(KeyCode(event.code), value: event.value, time: event.time))
    }
    tryGrab(entry)
    if batch.gone { remove(entry.device.path, reason: "went away") }
  }

  /// A pointer's events through its tracker; lost events let go of a held key.
  private func readPointer(_ entry: OpenDevice, _ batch: InputBatch) {
    if batch.dropped { deliver(entry.keypad, .pointerLost) }
    for event in batch.events {
      if let action = entry.tracker?.handle(type: event.type, code: event.code, value: event.value)
      {
        deliver(entry.keypad, .pointer(action, time: event.time))
      }
    }
    tryGrab(entry)
    if batch.gone { remove(entry.device.path, reason: "went away") }
  }

  private func remove(_ path: String, reason: String) {
    guard let entry = open.removeValue(forKey: path) else { return }
    loop?.unwatch(entry.device.fd)
    log.info("\(entry.role): \(path) \(reason)")
    if entry.tracker != nil {
      deliver(entry.keypad, .pointerLost)
    } else {
      deliver(
        entry.keypad, .deviceRemoved(path: path, role: entry.cardReader ? .cardReader : .keypad))
    }
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
          matcher.keypad(for: identity, capabilities: capabilities) == nil,
          pointer(identity, capabilities) == nil, mode == .discover
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
    if let monitor { loop?.unwatch(monitor.fd) }
    monitor = nil
    for (_, entry) in open {
      loop?.unwatch(entry.device.fd)
      entry.device.close()
    }
    open = [:]
  }
}
