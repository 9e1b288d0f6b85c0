import PinpadCore
import PinpadDRM

/// The DRM part of `pinpadd --list-devices` (pinpadd(8), OPTIONS): one line per connector
/// of each `/dev/dri/card*`: card, connector, status, preferred mode (`WxH@Hz`, `-` when
/// none). Each connector is probed in full, so the status is what is plugged in now.
/// A card that cannot be opened gets one line with `?` and the reason.
public enum DRMListCommand {
  public static func lines(directory: String = "/dev/dri") -> [String] {
    var lines: [String] = []
    for path in DRMCard.cardPaths(directory: directory) {
      do {
        let card = try DRMCard(path: path)
        defer { card.close() }
        let connectors = try card.connectors()
        if connectors.isEmpty {
          lines.append([path, "-", "no connectors", "-"].joined(separator: "\t"))
        }
        for connector in connectors { lines.append(connector.summary.listing(card: path)) }
      } catch {
        lines.append([path, "?", "\(error)", "-"].joined(separator: "\t"))
      }
    }
    return lines
  }
}
