import PinpadCore
import Testing

/// `[Display] Connector=` and `Mode=` (pinpadd.conf(5)) over a card's probed connectors.
@Suite struct DRMConnectorChoiceTests {
  typealias Mode = DRMConnectorSummary.Mode
  let hdmi = DRMConnectorSummary(
    name: "HDMI-A-1", status: .disconnected, modes: [])
  let virtual = DRMConnectorSummary(
    name: "Virtual-1", status: .connected,
    modes: [
      Mode(width: 1920, height: 1080), Mode(width: 1280, height: 800, preferred: true),
      Mode(width: 800, height: 600, refresh: 75), Mode(width: 800, height: 600, refresh: 60),
    ])
  let dsi = DRMConnectorSummary(
    name: "DSI-1", status: .connected, modes: [Mode(width: 800, height: 480, preferred: true)])

  @Test func theFirstConnectedConnectorInItsPreferredModeNotTheLargest() throws {
    let choice = try DRMConnectorChoice.choose([hdmi, virtual, dsi]).get()
    #expect((choice.connector, choice.mode) == (1, 1))
  }

  @Test func aConnectorNamedIsTaken() throws {
    #expect(
      try DRMConnectorChoice.choose([hdmi, virtual, dsi], named: "DSI-1").get().connector == 2)
  }

  @Test func aModeGivenIsTakenAtItsFirstListing() throws {
    let choice = try DRMConnectorChoice.choose([virtual], size: (800, 600)).get()
    #expect((choice.connector, choice.mode) == (0, 2))
  }

  @Test func withoutAPreferredModeTheFirstIsTaken() throws {
    let plain = DRMConnectorSummary(
      name: "VGA-1", status: .connected,
      modes: [Mode(width: 1024, height: 768), Mode(width: 640, height: 480)])
    #expect(try DRMConnectorChoice.choose([plain]).get().mode == 0)
    #expect(plain.preferredMode == Mode(width: 1024, height: 768))
  }

  @Test func nothingConnectedMayYetAppear() {
    guard case .failure(let problem) = DRMConnectorChoice.choose([hdmi]) else {
      Issue.record("chose a disconnected connector")
      return
    }
    #expect(problem.mayAppear)
    #expect(problem.description == "no connected connector (HDMI-A-1 disconnected)")
  }

  @Test func aCardWithoutConnectorsWillNotGetOne() {
    guard case .failure(let problem) = DRMConnectorChoice.choose([]) else {
      Issue.record("chose a connector of none")
      return
    }
    #expect(!problem.mayAppear)
    #expect(problem.description == "no connected connector")
  }

  @Test func anUnknownNameOrModeSaysWhatThereIs() {
    guard case .failure(let name) = DRMConnectorChoice.choose([hdmi, dsi], named: "HDMI-A-2"),
      case .failure(let mode) = DRMConnectorChoice.choose([virtual], size: (640, 480))
    else {
      Issue.record("chose something")
      return
    }
    #expect(name.description == "no connector HDMI-A-2 (the card has HDMI-A-1, DSI-1)")
    #expect(!name.mayAppear)
    #expect(
      mode.description
        == "connector Virtual-1 has no mode 640x480 (it has 1920x1080, 1280x800, 800x600)")
  }

  @Test func aPanelMountedSidewaysIsTurnedBackAsTheKernelsConsoleDoes() {
    #expect(ScreenRotation(panelOrientation: "Normal") == ScreenRotation.none)
    #expect(ScreenRotation(panelOrientation: "Upside Down") == .upsideDown)
    // Left side up: the panel was turned clockwise; fbcon turns its text counter-clockwise.
    #expect(ScreenRotation(panelOrientation: "Left Side Up") == .clockwise270)
    #expect(ScreenRotation(panelOrientation: "Right Side Up") == .clockwise90)
    #expect(ScreenRotation(panelOrientation: "Sideways") == nil)
  }

  @Test func theListingLineGivesCardNameStatusAndPreferredMode() {
    #expect(
      virtual.listing(card: "/dev/dri/card0") == "/dev/dri/card0\tVirtual-1\tconnected\t1280x800@60"
    )
    #expect(hdmi.listing(card: "/dev/dri/card1") == "/dev/dri/card1\tHDMI-A-1\tdisconnected\t-")
  }
}
