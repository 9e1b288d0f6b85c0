import Testing

@testable import PinpadCore

private func parse(_ text: String) throws(ConfigError) -> Configuration {
  try ConfigParser.parse([ConfigSource(path: "door.conf", text: text)])
}

private func failure(_ text: String) -> ConfigError? {
  do {
    _ = try parse(text)
    return nil
  } catch { return error }
}

@Suite struct DoorConfigTests {
  @Test func everyKeyIsReadAndRenderedBackToTheSameConfiguration() throws {
    let config = try parse(
      """
      [Keypad front]
      Match=*Keypad*
      [Keypad side]
      Match=usb:1a2c:0e24
      [Door main]
      Keypads=front side
      Relay=/dev/gpiochip0:17
      RelayActiveLow=yes
      OpenSec=0.5
      FailMode=safe
      Contact=cp2112_gpio:door-contact
      ContactActiveLow=yes
      HeldOpenSec=12
      ExitButton=cp2112_gpio:2
      ExitButtonActiveLow=true
      DebounceSec=0.02
      Buzzer=cp2112_gpio:4
      BuzzerActiveLow=yes
      LedGranted=cp2112_gpio:green
      LedGrantedActiveLow=no
      LedDenied=/dev/gpiochip1:6
      LedDeniedActiveLow=yes
      """)
    let door = try #require(config.doors.first)
    #expect(door.name == "main")
    #expect(door.keypads == ["front", "side"])
    #expect(door.relay == GPIOLineSpec(chip: .path("/dev/gpiochip0"), line: .offset(17)))
    #expect(door.relayActiveLow)
    #expect(door.open == .milliseconds(500))
    #expect(door.failMode == .safe)
    #expect(door.contact == GPIOLineSpec(chip: .label("cp2112_gpio"), line: .name("door-contact")))
    #expect(door.contactActiveLow)
    #expect(door.heldOpen == .seconds(12))
    #expect(door.exitButton == GPIOLineSpec(chip: .label("cp2112_gpio"), line: .offset(2)))
    #expect(door.exitButtonActiveLow)
    #expect(door.debounce == .milliseconds(20))
    #expect(door.buzzer == GPIOLineSpec(chip: .label("cp2112_gpio"), line: .offset(4)))
    #expect(door.buzzerActiveLow)
    #expect(door.ledGranted == GPIOLineSpec(chip: .label("cp2112_gpio"), line: .name("green")))
    #expect(!door.ledGrantedActiveLow)
    #expect(door.ledDenied == GPIOLineSpec(chip: .path("/dev/gpiochip1"), line: .offset(6)))
    #expect(door.ledDeniedActiveLow)
    let rendered = config.render()
    #expect(rendered.contains("[Door main]\nKeypads=front side\nRelay=/dev/gpiochip0:17\n"))
    #expect(try parse(rendered) == config)
  }

  @Test func defaultsAreThoseOfTheSpec() throws {
    let door = try #require(try parse("[Door d]\nRelay=gpiochip0:4\n").doors.first)
    #expect(door.keypads.isEmpty && door.opens(for: "anything"))
    #expect(door.open == .seconds(3) && door.failMode == .secure)
    #expect(door.heldOpen == .seconds(30) && door.debounce == .milliseconds(50))
    #expect(door.contact == nil && door.exitButton == nil && !door.relayActiveLow)
    #expect(door.buzzer == nil && door.ledGranted == nil && door.ledDenied == nil)
  }

  @Test func aLabelMayHoldAColonTheLineIsAfterTheLastOne() {
    #expect(
      GPIOLineSpec.parse("soc:gpio:5") == GPIOLineSpec(chip: .label("soc:gpio"), line: .offset(5)))
  }

  @Test(arguments: [
    ("[Door d]\nRelay=gpiochip0\n", 2, "is not CHIP:LINE"),
    ("[Door d]\nRelay=:3\n", 2, "is not CHIP:LINE"),
    ("[Door d]\nRelay=chip:99999\n", 2, "is not CHIP:LINE"),
    ("[Door d]\nRelay=chip:\n", 2, "is not CHIP:LINE"),
    ("[Door d]\nRelay=c:1\nOpenSec=0.05\n", 3, "OpenSec=0.05 is out of range (0.1..300)"),
    ("[Door d]\nRelay=c:1\nOpenSec=301\n", 3, "OpenSec=301 is out of range (0.1..300)"),
    ("[Door d]\nRelay=c:1\nOpenSec=-1\n", 3, "must not be negative"),
    ("[Door d]\nRelay=c:1\nHeldOpenSec=0\n", 3, "must be more than 0"),
    ("[Door d]\nRelay=c:1\nDebounceSec=2\n", 3, "DebounceSec=2 is out of range (0..1)"),
    ("[Door d]\nRelay=c:1\nFailMode=open\n", 3, "FailMode=open is not one of secure or safe"),
    ("[Door d]\nRelay=c:1\nRelayActiveLow=maybe\n", 3, "is not a boolean"),
    ("[Door d]\nRelay=c:1\nrelay=c:2\n", 3, "unknown key relay in [Door d] (did you mean Relay?)"),
    ("[Door]\nRelay=c:1\n", 1, "[Door] needs a name"),
    ("[Door a/b]\nRelay=c:1\n", 1, "may hold only letters"),
    ("[Door d]\nRelay=c:1\n[Door d]\nRelay=c:2\n", 3, "[Door d] is already defined at line 1"),
    ("[Door d]\nOpenSec=2\n", 1, "[Door d] needs Relay="),
    (
      "[Door d]\nRelay=c:1\nKeypads=front\n", 3,
      "Keypads=: no keypad named front (keypads: default)"
    ),
    (
      "[Keypad front]\nMatch=x\n[Door d]\nKeypads=front back\nRelay=c:1\n", 4,
      "no keypad named back (keypads: front)"
    ),
    (
      "[Door d]\nRelay=c:1\nContact=c:1\n", 3,
      "[Door d] Contact=c:1 is the same line as [Door d] Relay="
    ),
    ("[Door d]\nRelay=c:1\nBuzzer=c\n", 3, "Buzzer=c is not CHIP:LINE"),
    ("[Door d]\nRelay=c:1\nLedDeniedActiveLow=2\n", 3, "is not a boolean"),
    ("[Door d]\nRelay=c:1\nledgranted=c:2\n", 3, "(did you mean LedGranted?)"),
    (
      "[Door d]\nRelay=c:1\nLedGranted=c:2\nLedDenied=c:2\n", 4,
      "[Door d] LedDenied=c:2 is the same line as [Door d] LedGranted="
    ),
    (
      "[Door d]\nRelay=c:1\nBuzzer=c:1\n", 3,
      "[Door d] Buzzer=c:1 is the same line as [Door d] Relay="
    ),
    (
      "[Door a]\nRelay=c:1\n[Door b]\nRelay=/dev/gpiochip0:1\nExitButton=c:1\n", 5,
      "[Door b] ExitButton=c:1 is the same line as [Door a] Relay="
    ),
  ])
  func everyMistakeIsOneLineWithItsFileAndLine(text: String, line: Int, message: String) throws {
    let error = try #require(failure(text))
    #expect(error.path == "door.conf")
    #expect(error.line == line)
    #expect(error.message.contains(message), "\(error.message)")
    #expect(!error.description.contains("\n"))
  }

  @Test func theRelayLineOfEachFailModeIsActiveForTheRightState() {
    #expect(DoorFailMode.secure.relayActive(unlocked: true))
    #expect(!DoorFailMode.secure.relayActive(unlocked: false))
    #expect(DoorFailMode.safe.relayActive(unlocked: false))
    #expect(!DoorFailMode.safe.relayActive(unlocked: true))
  }
}
