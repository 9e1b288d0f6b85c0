import Glibc
import PinpadCore
import PinpadSystem

/// Why `directory` cannot be listed (it does not exist, no permission ...); nil when it can.
public func inputDirectoryProblem(_ directory: String = "/dev/input") -> Errno? {
  guard let dir = opendir(directory) else { return Errno.current }
  closedir(dir)
  return nil
}

/// The `event*` nodes in a directory (default `/dev/input`), sorted by number.
public func inputEventNodes(in directory: String = "/dev/input") -> [String] {
  guard let dir = opendir(directory) else { return [] }
  defer { closedir(dir) }
  var nodes: [String] = []
  while let entry = readdir(dir) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    if name.hasPrefix("event"), name.dropFirst(5).allSatisfy(\.isNumber) {
      nodes.append(directory + "/" + name)
    }
  }
  return nodes.sorted {
    Int($0.dropFirst(directory.count + 6)) ?? 0 < Int($1.dropFirst(directory.count + 6)) ?? 0
  }
}

/// What is known about one event node for `--list-devices`: udev's view when udev (or
/// sysfs) knows the node, else what opening it tells; nil when neither works.
public func describeInputNode(
  _ path: String, udevDevices: [(DeviceIdentity, DeviceCapabilities)]
) -> (DeviceIdentity, DeviceCapabilities)? {
  if let known = udevDevices.first(where: { $0.0.devnode == path }) { return known }
  guard let device = try? EvdevDevice(path: path) else { return nil }
  defer { device.close() }
  return (device.identity, device.capabilities)
}
