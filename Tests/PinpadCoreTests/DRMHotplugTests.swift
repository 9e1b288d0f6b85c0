import PinpadCore
import Testing

/// A connector unplugged and plugged back, as a DRM display decides it (pinpadd(8),
/// DISPLAY): from what it shows and a fresh probe.
@Suite struct DRMHotplugTests {
  typealias Mode = DRMConnectorSummary.Mode
  let panel = Mode(width: 800, height: 480, preferred: true)
  let full = Mode(width: 1920, height: 1080, preferred: true)

  func virtual(_ status: DRMConnectorSummary.Status, _ modes: [Mode]) -> DRMConnectorSummary {
    DRMConnectorSummary(name: "Virtual-1", status: status, modes: modes)
  }
  func hdmi(_ status: DRMConnectorSummary.Status, _ modes: [Mode]) -> DRMConnectorSummary {
    DRMConnectorSummary(name: "HDMI-A-1", status: status, modes: modes)
  }
  var shownPanel: DRMHotplug.Shown { .init(connector: "Virtual-1", mode: panel) }

  @Test func theConnectorShownStillThereInTheSameModeChangesNothing() {
    let action = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480), connectors: [virtual(.connected, [panel])])
    #expect(action == .nothing)
  }

  @Test func theConnectorShownGoneStopsShowingWithTheReason() {
    let action = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480), connectors: [virtual(.disconnected, [])])
    #expect(action == .stop(reason: "no connected connector (Virtual-1 disconnected)"))
    let named = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480), connectors: [virtual(.disconnected, [])],
      named: "Virtual-1")
    #expect(named == .stop(reason: "connector Virtual-1 has nothing connected"))
  }

  @Test func nothingShownAndStillNothingConnectedChangesNothing() {
    #expect(
      DRMHotplug.react(showing: nil, buffers: (800, 480), connectors: [virtual(.disconnected, [])])
        == .nothing)
    #expect(DRMHotplug.react(showing: nil, buffers: nil, connectors: []) == .nothing)
  }

  @Test func pluggedBackInAModeOfTheBuffersSizeIsShownAgain() {
    let action = DRMHotplug.react(
      showing: nil, buffers: (800, 480),
      connectors: [hdmi(.disconnected, []), virtual(.connected, [panel])])
    #expect(action == .showAgain(.init(connector: 1, mode: 0)))
  }

  @Test func pluggedBackInAModeOfAnotherSizeGetsANewMode() {
    let action = DRMHotplug.react(
      showing: nil, buffers: (800, 480),
      connectors: [
        virtual(.connected, [panel, Mode(width: 1920, height: 1080)]).with(preferred: 1)
      ])
    #expect(action == .newMode(.init(connector: 0, mode: 1)))
  }

  @Test func theFirstConnectorAfterWaitingGetsANewMode() {
    let action = DRMHotplug.react(
      showing: nil, buffers: nil, connectors: [virtual(.connected, [panel])])
    #expect(action == .newMode(.init(connector: 0, mode: 0)))
  }

  @Test func theConnectorShownChangingItsPreferredModeGetsIt() {
    let resized = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480), connectors: [virtual(.connected, [full])])
    #expect(resized == .newMode(.init(connector: 0, mode: 0)))
    let refresh = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480),
      connectors: [
        virtual(.connected, [Mode(width: 800, height: 480, refresh: 75, preferred: true)])
      ])
    #expect(refresh == .showAgain(.init(connector: 0, mode: 0)))
  }

  @Test func theConnectorShownIsKeptWhenAnEarlierOneIsPluggedIn() {
    let action = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480),
      connectors: [hdmi(.connected, [full]), virtual(.connected, [panel])])
    #expect(action == .nothing)
  }

  @Test func anotherConnectorTakesOverWhenTheOneShownIsGone() {
    let action = DRMHotplug.react(
      showing: shownPanel, buffers: (800, 480),
      connectors: [hdmi(.connected, [full]), virtual(.disconnected, [])])
    #expect(action == .newMode(.init(connector: 0, mode: 0)))
  }

  @Test func aConnectorNamedIsNotLeftForAnother() {
    let action = DRMHotplug.react(
      showing: nil, buffers: (800, 480),
      connectors: [hdmi(.connected, [panel]), virtual(.disconnected, [])], named: "Virtual-1")
    #expect(action == .nothing)
  }

  @Test func aModeGivenIsKeptAcrossAReplug() {
    let action = DRMHotplug.react(
      showing: nil, buffers: (800, 480),
      connectors: [virtual(.connected, [full, panel])], size: (800, 480))
    #expect(action == .showAgain(.init(connector: 0, mode: 1)))
  }
}

extension DRMConnectorSummary {
  /// The same connector with only mode `index` marked preferred.
  fileprivate func with(preferred index: Int) -> DRMConnectorSummary {
    var copy = self
    for i in copy.modes.indices { copy.modes[i].preferred = i == index }
    return copy
  }
}
