/// What a DRM display does when its card reports a connector change (udev's `drm`
/// change event: a cable unplugged or plugged in; pinpadd(8), DISPLAY), decided from
/// what it drives now and a fresh full probe of the connectors. Pure, so it is tested as
/// values; the display does the modesetting.
public enum DRMHotplug {
  /// What the display drives: a connector by name, in a mode.
  public struct Shown: Equatable, Sendable {
    public var connector: String
    public var mode: DRMConnectorSummary.Mode
    public init(connector: String, mode: DRMConnectorSummary.Mode) {
      self.connector = connector
      self.mode = mode
    }
  }

  public enum Action: Equatable, Sendable {
    /// Nothing that matters changed.
    case nothing
    /// What was shown is gone: stop drawing, keep the session and its state. The reason
    /// is for the log.
    case stop(reason: String)
    /// Drive the chosen connector in a mode of the buffers' size: set the mode and
    /// redraw the whole picture.
    case showAgain(DRMConnectorChoice.Choice)
    /// Drive the chosen connector in a mode of another size: new buffers, the layout
    /// redone for it, the whole picture drawn.
    case newMode(DRMConnectorChoice.Choice)
  }

  /// `showing`: what is on screen now, nil when nothing is (waiting for a first
  /// connector, or stopped). `buffers`: the size of the buffers the display has, nil
  /// when it has none. `named` and `size` are `[Display] Connector=` and `Mode=`.
  /// While showing, the connector shown is kept as long as it is connected, even when
  /// `Connector=` is empty and another one came first.
  public static func react(
    showing: Shown?, buffers: (width: Int, height: Int)?, connectors: [DRMConnectorSummary],
    named: String = "", size: (width: Int, height: Int)? = nil
  ) -> Action {
    var choice = DRMConnectorChoice.choose(connectors, named: named, size: size)
    if let showing, named.isEmpty,
      let index = connectors.firstIndex(where: { $0.name == showing.connector }),
      connectors[index].status == .connected,
      case .success(let kept) = DRMConnectorChoice.choose(
        connectors, named: showing.connector, size: size)
    {
      choice = .success(kept)
    }
    switch choice {
    case .failure(let problem):
      return showing == nil ? .nothing : .stop(reason: problem.description)
    case .success(let chosen):
      let connector = connectors[chosen.connector]
      let mode = connector.modes[chosen.mode]
      if let showing, showing.connector == connector.name, showing.mode.width == mode.width,
        showing.mode.height == mode.height, showing.mode.refresh == mode.refresh
      {
        return .nothing
      }
      if let buffers, buffers.width == mode.width, buffers.height == mode.height {
        return .showAgain(chosen)
      }
      return .newMode(chosen)
    }
  }
}
