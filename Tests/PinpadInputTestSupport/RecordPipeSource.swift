import CLibevdev
import Glibc
import PinpadCore
import PinpadInput
import PinpadSystem

/// A device for tests: raw `struct input_event` records read from a pipe, with the key
/// state kept from the events read, as libevdev keeps it. A `SYN_DROPPED` record is
/// reported like libevdev does; the "resync" then finds the key state as the records
/// left it. What is written to it is kept, not sent (`written`). `device()` (or
/// `EvdevDevice(path:source:udev:)`) reads it; the test writes the records into the pipe
/// (`InputEvent.kernelRecord`).
public final class RecordPipeSource: EvdevSource {
  public let fd: Int32
  public let identity: DeviceIdentity
  public let name: String
  public let phys: String
  public let ids: (vendor: UInt16, product: UInt16, bustype: UInt16)
  private let capabilities: Set<Int>
  private var down: Set<Int>
  private var buffer: [UInt8] = []
  private var pipe: OwnedDescriptor
  private var leds: [Int: Bool]
  private let sounds: Set<Int>
  /// What was written to the device, in order, SYN_REPORTs included.
  public private(set) var written: [input_event] = []
  /// The key state the next resync finds (keys that changed in events the kernel
  /// dropped); nil: the state the records left.
  public var keysAfterDrop: Set<Int>?

  /// Takes ownership of `pipe`, a non-blocking read end, read as a device with these
  /// keys, these keys down at open, and this identity. `leds`: the LEDs it has and
  /// whether each is on; `sounds`: its EV_SND codes.
  public init(
    _ pipe: consuming OwnedDescriptor, identity: DeviceIdentity, keys: [KeyCode],
    keysDown: [KeyCode] = [], leds: [UInt16: Bool] = [:], sounds: [UInt16] = []
  ) {
    self.leds = Dictionary(uniqueKeysWithValues: leds.map { (Int($0.key), $0.value) })
    self.sounds = Set(sounds.map(Int.init))
    self.fd = pipe.fd.rawValue
    self.pipe = pipe
    self.identity = identity
    name = identity.name
    phys = identity.phys
    ids = (identity.vendor, identity.product, identity.bustype)
    capabilities = Set(keys.map { Int($0.rawValue) })
    down = Set(keysDown.map { Int($0.rawValue) })
  }

  /// A device reading this source, writable (its LEDs and beeper are driven into
  /// `written`), at the identity's devnode.
  public func device() -> EvdevDevice {
    EvdevDevice(path: identity.devnode, source: self, udev: identity, writable: true)
  }

  public func has(type: Int32, code: Int) -> Bool {
    switch type {
    case EV_KEY: capabilities.contains(code)
    case EV_LED: leds[code] != nil
    case EV_SND: sounds.contains(code)
    default: false
    }
  }
  public func isDown(_ code: Int) -> Bool { down.contains(code) }
  public func absoluteRange(_ code: Int) -> AxisRange? { nil }

  public func next(sync: Bool, _ event: inout input_event) -> Int32 {
    if !pipe.isOpen { return -EBADF }
    if sync {
      // The kernel's state after a drop, as EVIOCGKEY would report it.
      if let state = keysAfterDrop { down = state }
      keysAfterDrop = nil
      return -EAGAIN
    }
    let size = MemoryLayout<input_event>.size
    var chunk = [UInt8](repeating: 0, count: 64 * size)
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 && errno != EAGAIN { return -errno }
    if count > 0 { buffer += chunk[0..<count] }
    if count == 0 && !buffer.isEmpty { return -EINVAL }  // a torn record at EOF
    guard buffer.count >= size else { return -EAGAIN }
    event = buffer.withUnsafeBytes { $0.loadUnaligned(as: input_event.self) }
    buffer.removeFirst(size)
    if event.type == UInt16(EV_SYN) && event.code == UInt16(SYN_DROPPED) { return 1 }
    if event.type == UInt16(EV_KEY) {
      if event.value == 0 { down.remove(Int(event.code)) } else { down.insert(Int(event.code)) }
    }
    return 0
  }

  public func grab(_ on: Bool) -> Int32 { -ENOTTY }

  public func ledIsOn(_ code: Int) -> Bool { leds[code] ?? false }

  public func write(_ events: [input_event]) -> Int32 {
    guard pipe.isOpen else { return -EBADF }
    written += events
    for event in events where event.type == UInt16(EV_LED) {
      leds[Int(event.code)] = event.value != 0
    }
    return 0
  }

  public func close() { pipe.close() }
}
