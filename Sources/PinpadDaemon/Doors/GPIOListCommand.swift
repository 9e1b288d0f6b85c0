import PinpadCore
import PinpadSystem

/// The GPIO part of `pinpadd --list-devices` (pinpadd.conf(5), [Door NAME]): one line per
/// chip (path, label, line count), then one per line with its offset, name, consumer and
/// which `[Door]` key names it. Nothing is requested: the lines are only described.
public enum GPIOListCommand {
  public static func lines(configuration: Configuration, directory: String = "/dev") -> [String] {
    var out: [String] = []
    for path in GPIO.chipPaths(directory: directory) {
      guard let chip = try? GPIO.info(path) else {
        out.append([path, "?", "?"].joined(separator: "\t"))
        continue
      }
      out.append([chip.path, chip.label, "\(chip.lines.count) lines"].joined(separator: "\t"))
      for line in chip.lines {
        var users: [String] = []
        for door in configuration.doors {
          for (key, spec) in door.lines where names(spec, line, chip) {
            users.append("[Door \(door.name)] \(key)")
          }
        }
        let state = line.used ? "used by \(line.consumer.isEmpty ? "?" : line.consumer)" : "free"
        out.append(
          [
            "  \(line.offset)", line.name.isEmpty ? "-" : line.name,
            line.output ? "output" : "input", state,
            users.isEmpty ? "-" : users.joined(separator: ", "),
          ].joined(separator: "\t"))
      }
    }
    return out
  }

  static func names(_ spec: GPIOLineSpec, _ line: GPIOChipInfo.Line, _ chip: GPIOChipInfo) -> Bool {
    let chipMatches: Bool
    switch spec.chip {
    case .path(let path): chipMatches = path == chip.path
    case .label(let label): chipMatches = label == chip.label || label == chip.name
    }
    switch spec.line {
    case .offset(let offset): return chipMatches && offset == line.offset
    case .name(let name): return chipMatches && name == line.name
    }
  }
}
