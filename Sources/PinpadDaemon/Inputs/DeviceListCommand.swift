import PinpadCore
import PinpadInput
import PinpadSystem

/// `pinpadd --list-devices` (pinpadd(8), OPTIONS): one line per `/dev/input/event*` with
/// path, name, `vvvv:pppp`, phys, whether it can serve as a keypad, and the `[Keypad]`
/// section it goes to (see `DeviceListing` for the format).
///
/// Device data comes from udev and sysfs, so no permission on the nodes is needed; a node
/// sysfs does not know is opened instead, and one that cannot be opened either is still
/// listed, with `?` for what is unknown.
public enum DeviceListCommand {
  public static func lines(
    configuration: Configuration, directory: String = "/dev/input"
  ) -> [String] {
    let matcher = KeypadMatcher(keypads: configuration.keypads)
    let known = UdevDevices.enumerate(initialisedOnly: false)
    return inputEventNodes(in: directory).map { path in
      guard let (identity, capabilities) = describeInputNode(path, udevDevices: known) else {
        return [path, "?", "????:????", "?", "?", "-"].joined(separator: "\t")
      }
      return DeviceListing(device: identity, capabilities: capabilities, matcher: matcher).line
    }
  }

  /// Prints the lines to stdout and returns the exit status: 0, also when there are no
  /// input devices at all (an empty list is an answer). Then one line on stderr says so,
  /// and why.
  public static func run(configuration: Configuration, directory: String = "/dev/input")
    -> Int32
  {
    let lines = lines(configuration: configuration, directory: directory)
    for line in lines { print(line) }
    if lines.isEmpty {
      DaemonMain.printError("pinpadd: \(emptyListing(directory, inputDirectoryProblem(directory)))")
    }
    // GPIO chips for [Door] lines (pinpadd.conf(5), [Door NAME]), after a heading line.
    let gpio = GPIOListCommand.lines(configuration: configuration)
    if !gpio.isEmpty || !configuration.doors.isEmpty {
      print("# GPIO chips")
      for line in gpio { print(line) }
    }
    // DRM cards and their connectors (pinpadd.conf(5), [Display]), after a heading line.
    let drm = DRMListCommand.lines()
    if !drm.isEmpty {
      print("# DRM connectors")
      for line in drm { print(line) }
    }
    return 0
  }

  /// What an empty listing means, given why `directory` could not be read (nil: it was).
  public static func emptyListing(_ directory: String, _ problem: Errno?) -> String {
    switch problem {
    case nil:
      return "no input devices: \(directory) holds no event nodes"
    case .noEntry?:
      return
        "no input devices: \(directory) does not exist (no input drivers, or a container without devices)"
    case .accessDenied?, .notPermitted?:
      return
        "no input devices listed: no permission to read \(directory) (run as root or as a member of group input)"
    case let other?:
      return "no input devices listed: cannot read \(directory): \(other)"
    }
  }
}
