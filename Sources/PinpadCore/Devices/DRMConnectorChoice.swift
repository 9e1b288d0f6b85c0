/// A DRM connector as a full probe reports it (`drmModeGetConnector`): enough to choose
/// one and a mode (pinpadd.conf(5), [Display] Connector= and Mode=) and to list it in
/// `pinpadd --list-devices`.
public struct DRMConnectorSummary: Equatable, Sendable {
  public enum Status: String, Equatable, Sendable {
    case connected, disconnected, unknown
  }
  public struct Mode: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Vertical refresh in Hz.
    public var refresh: Int
    public var preferred: Bool
    public init(width: Int, height: Int, refresh: Int = 60, preferred: Bool = false) {
      self.width = width
      self.height = height
      self.refresh = refresh
      self.preferred = preferred
    }
  }

  /// The kernel's name: type and index, `HDMI-A-1`, `DSI-1`, `Virtual-1`.
  public var name: String
  public var status: Status
  /// In the kernel's order (the preferred one usually first).
  public var modes: [Mode]
  /// The turn its `panel orientation` property asks for (a panel mounted sideways, set
  /// by the kernel from firmware or `video=...,panel_orientation=`); nil without one.
  public var panelRotation: ScreenRotation?

  public init(name: String, status: Status, modes: [Mode], panelRotation: ScreenRotation? = nil) {
    self.name = name
    self.status = status
    self.modes = modes
    self.panelRotation = panelRotation
  }

  /// The mode pinpadd takes when `Mode=` is unset: the one marked preferred, else the
  /// first. Never simply the largest (a panel's native mode is its preferred one).
  public var preferredMode: Mode? { modes.first(where: \.preferred) ?? modes.first }

  /// `--list-devices`' line: card, connector, status, preferred mode (tab-separated).
  public func listing(card: String) -> String {
    let mode = preferredMode.map { "\($0.width)x\($0.height)@\($0.refresh)" } ?? "-"
    return [card, name, status.rawValue, mode].joined(separator: "\t")
  }
}

extension ScreenRotation {
  /// The clockwise turn that shows a picture upright on a panel whose DRM `panel
  /// orientation` property has the value `name`: a panel mounted with its left side up
  /// was turned clockwise, so the picture is turned back by 270 (as the kernel's own
  /// console does); nil for a value not known.
  public init?(panelOrientation name: String) {
    switch name {
    case "Normal": self = .none
    case "Upside Down": self = .upsideDown
    case "Left Side Up": self = .clockwise270
    case "Right Side Up": self = .clockwise90
    default: return nil
    }
  }
}

/// Which connector and mode to drive, from a card's connectors and `[Display]`'s
/// `Connector=` and `Mode=`. Pure, so it is tested as values.
public enum DRMConnectorChoice {
  public struct Choice: Equatable, Sendable {
    /// Index into the connectors given.
    public var connector: Int
    /// Index into that connector's modes.
    public var mode: Int
    public init(connector: Int, mode: Int) {
      self.connector = connector
      self.mode = mode
    }
  }

  /// Why nothing can be chosen, as the log line says it.
  public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    /// True when a connector may yet appear (a cable plugged in later); false for a card
    /// without connectors, an unknown name or mode.
    public var mayAppear: Bool
  }

  /// `named` empty: the first connected connector with modes. `size` nil: its preferred
  /// mode; else the first mode of that size (the kernel lists higher refresh first).
  public static func choose(
    _ connectors: [DRMConnectorSummary], named: String = "",
    size: (width: Int, height: Int)? = nil
  ) -> Result<Choice, Problem> {
    let index: Int
    if named.isEmpty {
      guard
        let first = connectors.firstIndex(where: { $0.status == .connected && !$0.modes.isEmpty })
      else {
        let names = connectors.map { "\($0.name) \($0.status.rawValue)" }
        return .failure(
          Problem(
            description: "no connected connector"
              + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))"),
            mayAppear: !connectors.isEmpty))
      }
      index = first
    } else {
      guard let found = connectors.firstIndex(where: { $0.name == named }) else {
        let names = connectors.map(\.name).joined(separator: ", ")
        return .failure(
          Problem(
            description: "no connector \(named) (the card has \(names.isEmpty ? "none" : names))",
            mayAppear: false))
      }
      guard connectors[found].status != .disconnected, !connectors[found].modes.isEmpty else {
        return .failure(
          Problem(description: "connector \(named) has nothing connected", mayAppear: true))
      }
      index = found
    }
    let modes = connectors[index].modes
    if let size {
      guard
        let mode = modes.firstIndex(where: { $0.width == size.width && $0.height == size.height })
      else {
        let sizes = modes.map { "\($0.width)x\($0.height)" }
        var unique: [String] = []
        for s in sizes where !unique.contains(s) { unique.append(s) }
        return .failure(
          Problem(
            description:
              "connector \(connectors[index].name) has no mode \(size.width)x\(size.height) (it has \(unique.joined(separator: ", ")))",
            mayAppear: false))
      }
      return .success(Choice(connector: index, mode: mode))
    }
    let preferred = modes.firstIndex(where: \.preferred) ?? 0
    return .success(Choice(connector: index, mode: preferred))
  }
}
