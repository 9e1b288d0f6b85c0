import CPinpadShim
import Glibc
import PinpadCore

/// A GPIO chip as the character device reports it (GPIO_GET_CHIPINFO_IOCTL).
public struct GPIOChipInfo: Sendable {
  public struct Line: Sendable {
    public var offset: UInt32
    public var name: String
    public var consumer: String
    public var used: Bool
    public var output: Bool
  }
  public var path: String
  public var name: String
  public var label: String
  public var lines: [Line]
}

/// Finding chips and lines by path, label, offset or name (the `CHIP:LINE` of
/// pinpadd.conf(5), [Door NAME]).
public enum GPIO {
  /// `/dev/gpiochip*`, in numeric order.
  public static func chipPaths(directory: String = "/dev") -> [String] {
    FileSystem.list(directory).filter { $0.hasPrefix("gpiochip") }
      .sorted { (Int($0.dropFirst(8)) ?? 0, $0) < (Int($1.dropFirst(8)) ?? 0, $1) }
      .map { "\(directory)/\($0)" }
  }

  /// Opens a chip read-only (the uAPI needs no write access for line requests).
  public static func openChip(_ path: String) throws(Errno) -> OwnedDescriptor {
    try OwnedDescriptor.open(path, O_RDONLY)
  }

  /// The chip's label and its lines' names (without requesting any line).
  public static func info(_ path: String) throws(Errno) -> GPIOChipInfo {
    let chip = try openChip(path)  // closed by its owner at the end of this scope
    return try info(chip.fd, path: path)
  }

  static func info(_ fd: FileDescriptor, path: String) throws(Errno) -> GPIOChipInfo {
    var name = [CChar](repeating: 0, count: 32)
    var label = [CChar](repeating: 0, count: 32)
    var count: UInt32 = 0
    let result = pinpad_gpio_chip_info(fd.rawValue, &name, &label, &count)
    if result < 0 { throw Errno(-result) }
    var lines: [GPIOChipInfo.Line] = []
    for offset in 0..<min(count, GPIOLineSpec.maxOffset + 1) {
      var lineName = [CChar](repeating: 0, count: 32)
      var consumer = [CChar](repeating: 0, count: 32)
      var used: Int32 = 0
      var output: Int32 = 0
      let r = pinpad_gpio_line_info(fd.rawValue, offset, &lineName, &consumer, &used, &output)
      if r < 0 { throw Errno(-r) }
      lines.append(
        .init(
          offset: offset, name: text(lineName), consumer: text(consumer), used: used != 0,
          output: output != 0))
    }
    return GPIOChipInfo(path: path, name: text(name), label: text(label), lines: lines)
  }

  /// Where a `CHIP:LINE` is now: the chip's path and the line's offset, or why not.
  public static func resolve(_ spec: GPIOLineSpec, directory: String = "/dev")
    -> Result<(path: String, offset: UInt32), SystemError>
  {
    var chip: GPIOChipInfo? = nil
    switch spec.chip {
    case .path(let path):
      do { chip = try info(path) } catch {
        return .failure(SystemError("cannot open GPIO chip \(path)", error))
      }
    case .label(let label):
      for path in chipPaths(directory: directory) {
        if let found = try? info(path), found.label == label || found.name == label {
          chip = found
          break
        }
      }
    }
    guard let chip else {
      return .failure(.failure("no GPIO chip labelled \(spec.chipText)"))
    }
    switch spec.line {
    case .offset(let offset):
      guard offset < chip.lines.count else {
        return .failure(
          .failure(
            "GPIO chip \(chip.path) (\(chip.label)) has no line \(offset) (it has \(chip.lines.count))"
          ))
      }
      return .success((chip.path, offset))
    case .name(let name):
      guard let line = chip.lines.first(where: { $0.name == name }) else {
        return .failure(
          .failure("GPIO chip \(chip.path) (\(chip.label)) has no line named \(name)"))
      }
      return .success((chip.path, line.offset))
    }
  }

  private static func text(_ chars: [CChar]) -> String {
    let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// One requested GPIO line (a line request's fd): the only owner of that descriptor,
/// closed once, in `deinit` or `release()`. Closing it releases the line to the kernel.
public final class GPIOLine {
  public let path: String
  public let offset: UInt32
  private var owned: OwnedDescriptor
  /// The request's descriptor for calls; nil once released.
  public var fd: FileDescriptor? { owned.isOpen ? owned.fd : nil }

  private init(path: String, offset: UInt32, fd: Int32) {
    self.path = path
    self.offset = offset
    owned = OwnedDescriptor(taking: fd)
  }

  /// Requests an output line driven to `active` (logical) from the first instant.
  public static func output(
    path: String, offset: UInt32, activeLow: Bool, active: Bool, consumer: String
  ) throws(Errno) -> GPIOLine {
    let chip = try GPIO.openChip(path)
    let fd = pinpad_gpio_request_output(
      chip.fd.rawValue, offset, activeLow ? 1 : 0, active ? 1 : 0, consumer)
    if fd < 0 { throw Errno(-fd) }
    return GPIOLine(path: path, offset: offset, fd: fd)
  }

  /// Requests an input line with edge events (its fd becomes readable on each edge).
  public static func input(path: String, offset: UInt32, activeLow: Bool, consumer: String)
    throws(Errno) -> GPIOLine
  {
    let chip = try GPIO.openChip(path)
    let fd = pinpad_gpio_request_input(chip.fd.rawValue, offset, activeLow ? 1 : 0, consumer)
    if fd < 0 { throw Errno(-fd) }
    return GPIOLine(path: path, offset: offset, fd: fd)
  }

  public func set(_ active: Bool) throws(Errno) {
    guard let fd else { throw Errno(EBADF) }
    let result = pinpad_gpio_set(fd.rawValue, active ? 1 : 0)
    if result < 0 { throw Errno(-result) }
  }

  public func get() throws(Errno) -> Bool {
    guard let fd else { throw Errno(EBADF) }
    let result = pinpad_gpio_get(fd.rawValue)
    if result < 0 { throw Errno(-result) }
    return result == 1
  }

  /// Reads every queued edge event; returns how many there were.
  public func drainEvents() throws(Errno) -> Int {
    guard let fd else { throw Errno(EBADF) }
    var count = 0
    var stamp: UInt64 = 0
    var rising: Int32 = 0
    while count < 1024 {
      let result = pinpad_gpio_read_event(fd.rawValue, &stamp, &rising)
      if result < 0 { throw Errno(-result) }
      if result == 0 { break }
      count += 1
    }
    return count
  }

  /// Gives the line back to the kernel now.
  public func release() { owned.close() }
}
