import Testing

@testable import PinpadCore

private func parse(_ text: String, path: String = "pinpadd.conf") throws(ConfigError)
  -> Configuration
{
  try ConfigParser.parse([ConfigSource(path: path, text: text)])
}

private func parse(_ files: [(String, String)]) throws(ConfigError) -> Configuration {
  try ConfigParser.parse(files.map { ConfigSource(path: $0.0, text: $0.1) })
}

/// The error a text gives, or nil when it parses.
private func error(_ text: String, path: String = "pinpadd.conf") -> ConfigError? {
  do {
    _ = try parse(text, path: path)
    return nil
  } catch {
    return error
  }
}

private func error(_ files: [(String, String)]) -> ConfigError? {
  do {
    _ = try parse(files)
    return nil
  } catch {
    return error
  }
}

/// Every key of pinpadd.conf(5) set to something other than its default.
private let everyKey = """
  [Entry]
  Length=6
  MinLength=5
  MaxLength=12
  SubmitKeys=KEY_KPENTER KEY_KPPLUS
  BackspaceKeys=KEY_BACKSPACE KEY_KPMINUS
  ClearKeys=KEY_ESC
  RevealKeys=KEY_KPSLASH
  AllowedDigits=97531
  InterKeyTimeoutSec=2.5
  TotalTimeoutSec=45
  BurstIntervalSec=0.02
  Bursts=reject
  Mask=fixed
  RevealSec=1.25

  [Lockout]
  MaxFailures=3
  LockoutSec=60
  LockoutMaxSec=3600

  [Keypad front]
  Match=usb:1a2c:0e24 *Keypad*
  Grab=no

  [Keypad back]
  Match=/dev/input/by-id/usb-SEM_HCT-event-kbd
  CardReader=usb:ffff:0035 phys:usb-*-2/input0
  CardMode=card+pin
  PinAfterCardSec=7.5

  [Display]
  Output=fb
  Device=/dev/fb1
  Font=/usr/share/consolefonts/Lat15-Terminus32x16.psf.gz
  Prompt=Code please
  OnScreenKeypad=yes
  KeypadLayout=scrambled
  SnapshotSize=1024x600
  Connector=HDMI-A-1
  Mode=1920x1080
  Rotate=270

  [Socket]
  Path=/run/door/door.sock
  Group=door
  AllowUsers=door-controller root
  AllowGroups=door wheel
  DeliveryTimeoutSec=1.5
  VerdictTimeoutSec=20
  """

private func everyKeyConfiguration() -> Configuration {
  var config = Configuration()
  config.entry.length = 6
  config.entry.minLength = 5
  config.entry.maxLength = 12
  config.entry.submitKeys = [.kpEnter, KeyCode(78)]
  config.entry.backspaceKeys = [.backspace, KeyCode(74)]
  config.entry.clearKeys = [.esc]
  config.entry.revealKeys = [KeyCode(98)]
  config.entry.allowedDigits = [1, 3, 5, 7, 9]
  config.entry.interKeyTimeout = .milliseconds(2500)
  config.entry.totalTimeout = .seconds(45)
  config.entry.burstInterval = .milliseconds(20)
  config.entry.bursts = .reject
  config.entry.mask = .fixed
  config.entry.reveal = .milliseconds(1250)
  config.lockout.maxFailures = 3
  config.lockout.lockout = .seconds(60)
  config.lockout.lockoutMax = .seconds(3600)
  var front = KeypadConfig(name: "front")
  front.match = ["usb:1a2c:0e24", "*Keypad*"]
  front.grab = false
  var back = KeypadConfig(name: "back")
  back.match = ["/dev/input/by-id/usb-SEM_HCT-event-kbd"]
  back.cardReader = ["usb:ffff:0035", "phys:usb-*-2/input0"]
  back.cardMode = .cardPin
  back.pinAfterCard = .milliseconds(7500)
  config.keypads = [front, back]
  config.display.output = .fb
  config.display.device = "/dev/fb1"
  config.display.font = "/usr/share/consolefonts/Lat15-Terminus32x16.psf.gz"
  config.display.prompt = "Code please"
  config.display.onScreenKeypad = true
  config.display.keypadLayout = .scrambled
  config.display.snapshotWidth = 1024
  config.display.snapshotHeight = 600
  config.display.connector = "HDMI-A-1"
  config.display.mode = (1920, 1080)
  config.display.rotate = .clockwise270
  config.socket.path = "/run/door/door.sock"
  config.socket.group = "door"
  config.socket.allowUsers = ["door-controller", "root"]
  config.socket.allowGroups = ["door", "wheel"]
  config.socket.explicitKeys = ["Group", "AllowUsers", "AllowGroups"]
  config.socket.deliveryTimeout = .milliseconds(1500)
  config.socket.verdictTimeout = .seconds(20)
  return config
}

/// Every section at its defaults (the keys of pinpadd.conf(5)), each key annotated with a
/// trailing `# comment`: the listing parses as written.
private let specListing = """
  [Entry]
  Length=                  # N (1..32): fixed length, submitted as soon as N digits are in
  MinLength=4              # with no Length: variable length, submitted with a SubmitKey
  MaxLength=8
  SubmitKeys=KEY_ENTER KEY_KPENTER
  BackspaceKeys=KEY_BACKSPACE
  ClearKeys=KEY_ESC KEY_KPASTERISK
  RevealKeys=KEY_KPDOT
  AllowedDigits=0123456789
  InterKeyTimeoutSec=5     # partial entry wiped after this long without a key
  TotalTimeoutSec=30       # partial entry wiped this long after its first key
  BurstIntervalSec=0.015   # keys closer than this are a burst (scanner, autofill)
  Bursts=accept            # accept | reject
  Mask=dots                # dots | digits | fixed   (fixed hides the length)
  RevealSec=3              # a revealed entry re-masks after this long or at the next key

  [Lockout]
  MaxFailures=5            # consecutive denials on one keypad before it locks
  LockoutSec=30            # first lockout; doubles each further lockout
  LockoutMaxSec=900

  [Keypad NAME]            # zero or more; with none, every device with digit keys is a keypad named "default"
  Match=                   # space-separated: name globs, usb:VVVV:PPPP, phys globs, by-id paths
  Grab=yes                 # exclusive EVIOCGRAB so digits reach no console or other reader

  [Display]
  Output=auto              # auto | drm | fb | console | none
  Device=                  # /dev/fb0, /dev/tty1 ...
  Font=                    # a PSF1/PSF2 font, .psf or .psf.gz; empty: a console font if present, else built-in
  Prompt=Enter PIN
  OnScreenKeypad=no        # yes: draw a touch keypad (1-9, Backspace, 0, OK)
  KeypadLayout=phone       # phone | scrambled (digit positions reshuffled for every entry)
  SnapshotSize=800x480
  Connector=               # DRM connector name; empty: the first connected one
  Mode=                    # WxH; empty: the connector's preferred mode
  Rotate=                  # 0 | 90 | 180 | 270, clockwise; empty: the panel's orientation

  [Socket]
  Path=/run/pinpadd/pinpadd.sock
  Group=pinpadd
  AllowUsers=root
  AllowGroups=pinpadd
  DeliveryTimeoutSec=5
  VerdictTimeoutSec=10
  """

// MARK: - Values

@Test func noFilesGiveTheBuiltInDefaults() throws {
  #expect(try ConfigParser.parse([]) == Configuration())
}

@Test func anEmptyFileGivesTheBuiltInDefaults() throws {
  #expect(try parse("") == Configuration())
  #expect(try parse("\n\n# nothing here\n; nor here\n[Entry]\n") == Configuration())
}

@Test func everyKeyIsReadWithANonDefaultValue() throws {
  #expect(try parse(everyKey) == everyKeyConfiguration())
}

@Test func theSpecListingParsesAsWrittenToTheDefaults() throws {
  var expected = Configuration()
  expected.keypads = [KeypadConfig(name: "NAME")]
  expected.socket.explicitKeys = ["Group", "AllowUsers", "AllowGroups"]
  #expect(try parse(specListing) == expected)
}

@Test func whitespaceAroundKeysValuesAndHeadersIsIgnored() throws {
  let config = try parse(
    "\u{FEFF}  [ Entry ]  \r\n\tMinLength =\t6  \r\n  ; a comment\r\n   # another\r\n"
      + "MaxLength= 9 # trailing comment\n[Display] ; why not\nPrompt =  Door #2, please  \n"
      + "Device=/dev/fb#0\n")
  #expect(config.entry.minLength == 6)
  #expect(config.entry.maxLength == 9)
  #expect(config.display.prompt == "Door")
  #expect(config.display.device == "/dev/fb#0")
}

@Test func aHashWithoutSpaceBeforeItIsPartOfTheValue() throws {
  #expect(try parse("[Display]\nPrompt=#1 door").display.prompt == "#1 door")
}

@Test func booleansAcceptTheSystemdSpellings() throws {
  for yes in ["yes", "true", "1", "on", "YES", "True"] {
    #expect(try parse("[Display]\nOnScreenKeypad=\(yes)").display.onScreenKeypad)
  }
  for no in ["no", "false", "0", "off", "Off"] {
    #expect(
      try parse([
        ("a.conf", "[Display]\nOnScreenKeypad=yes"), ("b.conf", "[Display]\nOnScreenKeypad=\(no)"),
      ]).display.onScreenKeypad
        == false)
  }
}

@Test func durationsAreExactSecondsWithFractions() throws {
  let cases: [(String, Duration)] = [
    ("5", .seconds(5)), ("0.015", .milliseconds(15)), ("1.5", .milliseconds(1500)),
    ("0.000000001", .nanoseconds(1)), ("007", .seconds(7)), ("31536000", .seconds(31_536_000)),
  ]
  for (text, duration) in cases {
    #expect(try parse("[Entry]\nInterKeyTimeoutSec=\(text)").entry.interKeyTimeout == duration)
  }
}

@Test func aZeroBurstIntervalTurnsBurstDetectionOff() throws {
  #expect(try parse("[Entry]\nBurstIntervalSec=0").entry.burstInterval == .zero)
}

@Test func keyListsDropDuplicates() throws {
  let config = try parse("[Entry]\nClearKeys=KEY_ESC KEY_DELETE\tKEY_ESC")
  #expect(config.entry.clearKeys == [.esc, KeyCode(name: "KEY_DELETE")!])
}

// MARK: - Empty values

@Test func anEmptyValueRestoresTheDefaultOfASingleValue() throws {
  let config = try parse([
    ("pinpadd.conf", everyKey),
    (
      "pinpadd.conf.d/50-reset.conf",
      """
      [Entry]
      Length=
      MinLength=
      MaxLength=
      InterKeyTimeoutSec=
      TotalTimeoutSec=
      BurstIntervalSec=
      Bursts=
      Mask=
      RevealSec=
      SubmitKeys=KEY_ENTER KEY_KPENTER
      [Lockout]
      MaxFailures=
      LockoutSec=
      LockoutMaxSec=
      [Keypad front]
      Grab=
      [Display]
      Output=
      Device=
      Font=
      Prompt=
      OnScreenKeypad=
      KeypadLayout=
      SnapshotSize=
      Connector=
      Mode=
      Rotate=
      [Socket]
      Path=
      Group=
      DeliveryTimeoutSec=
      VerdictTimeoutSec=
      """
    ),
  ])
  let defaults = Configuration()
  #expect(config.entry.length == nil)
  #expect(config.entry.minLength == defaults.entry.minLength)
  #expect(config.entry.maxLength == defaults.entry.maxLength)
  #expect(config.entry.interKeyTimeout == defaults.entry.interKeyTimeout)
  #expect(config.entry.totalTimeout == defaults.entry.totalTimeout)
  #expect(config.entry.burstInterval == defaults.entry.burstInterval)
  #expect(config.entry.bursts == defaults.entry.bursts)
  #expect(config.entry.mask == defaults.entry.mask)
  #expect(config.entry.reveal == defaults.entry.reveal)
  #expect(config.lockout == defaults.lockout)
  #expect(config.keypads[0].grab == true)
  #expect(config.display == defaults.display)
  #expect(config.socket.path == defaults.socket.path)
  #expect(config.socket.group == defaults.socket.group)
  #expect(config.socket.deliveryTimeout == defaults.socket.deliveryTimeout)
  #expect(config.socket.verdictTimeout == defaults.socket.verdictTimeout)
}

@Test func anEmptyValueEmptiesAList() throws {
  let config = try parse([
    (
      "pinpadd.conf",
      """
      [Entry]
      BackspaceKeys=
      ClearKeys=
      RevealKeys=
      [Keypad front]
      Match=usb:1a2c:0e24
      [Socket]
      AllowUsers=
      """
    ),
    ("pinpadd.conf.d/10.conf", "[Keypad front]\nMatch=\n"),
  ])
  #expect(config.entry.backspaceKeys.isEmpty)
  #expect(config.entry.clearKeys.isEmpty)
  #expect(config.entry.revealKeys.isEmpty)
  #expect(config.keypads[0].match.isEmpty)
  #expect(config.socket.allowUsers.isEmpty)
  #expect(config.socket.allowGroups == ["pinpadd"])
}

@Test func submitKeysMayBeEmptyWithAFixedLength() throws {
  let config = try parse("[Entry]\nLength=4\nSubmitKeys=")
  #expect(config.entry.submitKeys.isEmpty)
}

// MARK: - Socket names written explicitly

@Test func socketNamesAreExplicitOnlyWhenWritten() throws {
  #expect(try parse("").socket.explicitKeys.isEmpty)
  #expect(try parse("[Socket]\nGroup=pinpadd").socket.explicitKeys == ["Group"])
  #expect(try parse("[Socket]\nAllowGroups=door").socket.explicitKeys == ["AllowGroups"])
  #expect(try parse("[Socket]\nAllowUsers=").socket.explicitKeys == ["AllowUsers"])
  #expect(
    try parse([("a.conf", "[Socket]\nGroup=door"), ("b.conf", "[Socket]\nGroup=")]).socket
      .explicitKeys.isEmpty)
}

// MARK: - Drop-ins

@Test func laterDropInsWinKeyByKey() throws {
  let config = try parse([
    ("/etc/pinpadd/pinpadd.conf", "[Entry]\nMinLength=5\nMaxLength=10\n[Display]\nPrompt=Main"),
    ("/etc/pinpadd/pinpadd.conf.d/10-site.conf", "[Entry]\nMinLength=6\n"),
    ("/etc/pinpadd/pinpadd.conf.d/20-door.conf", "[Entry]\nMinLength=7\n[Display]\nOutput=none"),
  ])
  #expect(config.entry.minLength == 7)
  #expect(config.entry.maxLength == 10)
  #expect(config.display.prompt == "Main")
  #expect(config.display.output == DisplayOutput.none)
}

@Test func aDropInContinuesAKeypadOfAnEarlierFile() throws {
  let config = try parse([
    ("pinpadd.conf", "[Keypad front]\nMatch=usb:1a2c:0e24\nGrab=no\n[Keypad back]\nMatch=back*"),
    ("pinpadd.conf.d/10.conf", "[Keypad front]\nMatch=usb:dead:beef\n[Keypad side]\nMatch=side*"),
  ])
  #expect(config.keypads.map(\.name) == ["front", "back", "side"])
  #expect(config.keypads[0].match == ["usb:dead:beef"])
  #expect(config.keypads[0].grab == false)
}

@Test func aSectionMayAppearAgainInOneFile() throws {
  let config = try parse("[Entry]\nMinLength=5\n[Display]\nPrompt=x\n[Entry]\nMaxLength=9")
  #expect(config.entry.minLength == 5)
  #expect(config.entry.maxLength == 9)
}

@Test func keypadNamesMayHoldSpacesAndPunctuation() throws {
  let config = try parse("[Keypad  Front door (east) ]\nGrab=no")
  #expect(config.keypads.map(\.name) == ["Front door (east)"])
}

// MARK: - Errors, with file and line

struct BadConfig: Sendable, CustomStringConvertible {
  var text: String
  var line: Int
  var message: String
  init(_ text: String, _ line: Int, _ message: String) {
    self.text = text
    self.line = line
    self.message = message
  }
  var description: String {
    text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ⏎ ")
  }
}

@Test(arguments: [
  // Syntax
  BadConfig("MinLength=4", 1, "MinLength= comes before any [Section] header"),
  BadConfig(
    "[Keypad door]\nMatch=Acme* usb:zz:1", 2,
    "Match= token usb:zz:1 is not usb:VVVV:PPPP (four hex digits each)"),
  BadConfig(
    "[Keypad door]\n\nMatch=usb:0627", 3,
    "Match= token usb:0627 is not usb:VVVV:PPPP (four hex digits each)"),
  BadConfig("# hello\n\nMinLength=4", 3, "MinLength= comes before any [Section] header"),
  BadConfig("[Entry]\nMinLength 4", 2, "expected Key=Value, a [Section] header or a comment"),
  BadConfig("[Entry]\n=4", 2, "the key name before '=' is missing"),
  BadConfig(
    "[Entry]\nminlength=4", 2, "unknown key minlength in [Entry] (did you mean MinLength?)"),
  BadConfig("[Entry]\nPinLength=4", 2, "unknown key PinLength in [Entry]"),
  BadConfig("[Entry]\nOutput=fb", 2, "unknown key Output in [Entry]"),
  BadConfig("[Keypad a]\nMask=dots", 2, "unknown key Mask in [Keypad a]"),
  // Headers
  BadConfig("[Entry]\n[Entry", 2, "section header [Entry is missing its closing ']'"),
  BadConfig("[]", 1, "empty section header []"),
  BadConfig("[  ]", 1, "empty section header []"),
  BadConfig(
    "[Global]", 1,
    "unknown section [Global] (expected Entry, Lockout, Keypad NAME, Display, Socket, MQTT or Door NAME)"
  ),
  BadConfig("[entry]", 1, "unknown section [entry] (did you mean [Entry]?)"),
  BadConfig("[Entry] MinLength=4", 1, "unexpected text after the section header: MinLength=4"),
  BadConfig("[Entry main]", 1, "[Entry] takes no name, found [Entry main]"),
  BadConfig("[Keypad]", 1, "[Keypad] needs a name, e.g. [Keypad front-door]"),
  BadConfig("[Keypad   ]", 1, "[Keypad] needs a name, e.g. [Keypad front-door]"),
  BadConfig("[Keypad a]\nGrab=no\n\n[Keypad a]", 4, "[Keypad a] is already defined at line 1"),
  BadConfig(
    "[Keypad a\u{7}]", 1, "the keypad name in [Keypad a\\x07] contains a control character"),
  // Keypad names are one MQTT topic level each (docs/protocol.md, "MQTT: topics").
  BadConfig(
    "[Keypad a+b]", 1,
    "the keypad name in [Keypad a+b] contains +, which cannot stand in an MQTT topic level"),
  BadConfig(
    "[Keypad a/b]", 1,
    "the keypad name in [Keypad a/b] contains /, which cannot stand in an MQTT topic level"),
  BadConfig(
    "[Keypad a#]", 1,
    "the keypad name in [Keypad a#] contains #, which cannot stand in an MQTT topic level"),
  BadConfig(
    "[Keypad caf\u{FFFD}]", 1, "the keypad name in [Keypad caf\u{FFFD}] is not valid UTF-8"),
  BadConfig(
    "[Keypad a\u{202E}b]", 1,
    "the keypad name in [Keypad a\\u{202e}b] contains an invisible or format character (U+202E)"),
  BadConfig(
    "[Keypad a b]\nGrab=no\n[Keypad a_b]", 3,
    "[Keypad a_b] and [Keypad a b] (pinpadd.conf:1) would share the topic level a_b: rename one"),
  BadConfig(
    "[Keypad café]\n[Keypad cafè]", 2,
    "[Keypad cafè] and [Keypad café] (pinpadd.conf:1) would share the Home Assistant id caf_: rename one"
  ),
  // Integers
  BadConfig("[Entry]\nLength=0", 2, "Length=0 is out of range (1..32)"),
  BadConfig("[Entry]\nLength=33", 2, "Length=33 is out of range (1..32)"),
  BadConfig("[Entry]\nLength=four", 2, "Length=four is not a whole number"),
  BadConfig("[Entry]\nLength=4.0", 2, "Length=4.0 is not a whole number"),
  BadConfig("[Entry]\nMinLength=-1", 2, "MinLength=-1 is out of range (1..32)"),
  BadConfig(
    "[Entry]\nMaxLength=99999999999999999999", 2,
    "MaxLength=99999999999999999999 is not a whole number"),
  BadConfig("[Lockout]\nMaxFailures=0", 2, "MaxFailures=0 must be at least 1"),
  // Durations
  BadConfig("[Entry]\nInterKeyTimeoutSec=-1", 2, "InterKeyTimeoutSec=-1 must not be negative"),
  BadConfig(
    "[Entry]\nInterKeyTimeoutSec=nan", 2,
    "InterKeyTimeoutSec=nan is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig(
    "[Entry]\nTotalTimeoutSec=inf", 2,
    "TotalTimeoutSec=inf is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig(
    "[Entry]\nTotalTimeoutSec=1e3", 2,
    "TotalTimeoutSec=1e3 is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig(
    "[Entry]\nTotalTimeoutSec=30s", 2,
    "TotalTimeoutSec=30s is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig(
    "[Entry]\nRevealSec=.5", 2, "RevealSec=.5 is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig(
    "[Entry]\nRevealSec=5.", 2, "RevealSec=5. is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig(
    "[Entry]\nRevealSec=1.2.3", 2, "RevealSec=1.2.3 is not a number of seconds (e.g. 5 or 0.015)"),
  BadConfig("[Entry]\nRevealSec=0", 2, "RevealSec=0 must be more than 0"),
  BadConfig(
    "[Entry]\nBurstIntervalSec=0.0000000001", 2,
    "BurstIntervalSec=0.0000000001 is more precise than a nanosecond"),
  BadConfig(
    "[Lockout]\nLockoutMaxSec=31536001", 2,
    "LockoutMaxSec=31536001 is too long (at most 31536000 seconds)"),
  BadConfig("[Socket]\nVerdictTimeoutSec=0.0", 2, "VerdictTimeoutSec=0.0 must be more than 0"),
  BadConfig(
    "[Socket]\nDeliveryTimeoutSec=soon", 2,
    "DeliveryTimeoutSec=soon is not a number of seconds (e.g. 5 or 0.015)"),
  // Keys
  BadConfig(
    "[Entry]\nSubmitKeys=KEY_ENTER KEY_ENTR", 2, "SubmitKeys: KEY_ENTR is not a kernel key name"),
  BadConfig(
    "[Entry]\nClearKeys=key_esc", 2,
    "ClearKeys: key_esc is not a kernel key name (names are upper case)"),
  BadConfig(
    "[Entry]\nRevealKeys=KEY_KP5", 2,
    "RevealKeys: KEY_KP5 is a digit key and cannot be a control key"),
  BadConfig(
    "[Entry]\nBackspaceKeys=KEY_0", 2,
    "BackspaceKeys: KEY_0 is a digit key and cannot be a control key"),
  // Digits, choices, booleans, sizes, paths
  BadConfig("[Entry]\nAllowedDigits=12a", 2, "AllowedDigits=12a may contain only the digits 0-9"),
  BadConfig("[Entry]\nAllowedDigits=1 2", 2, "AllowedDigits=1 2 may contain only the digits 0-9"),
  BadConfig("[Entry]\nAllowedDigits=1231", 2, "AllowedDigits=1231 lists 1 twice"),
  BadConfig("[Entry]\nMask=stars", 2, "Mask=stars is not one of dots, digits or fixed"),
  BadConfig("[Entry]\nBursts=Accept", 2, "Bursts=Accept is not one of accept or reject"),
  BadConfig(
    "[Display]\nOutput=kms", 2, "Output=kms is not one of auto, drm, fb, console or none"),
  BadConfig("[Display]\nRotate=45", 2, "Rotate=45 is not one of 0, 90, 180 or 270"),
  BadConfig("[Display]\nRotate=+90", 2, "Rotate=+90 is not one of 0, 90, 180 or 270"),
  BadConfig("[Display]\nRotate=right", 2, "Rotate=right is not one of 0, 90, 180 or 270"),
  BadConfig("[Display]\nMode=1920", 2, "Mode=1920 is not a size like 800x480"),
  BadConfig(
    "[Display]\nConnector=HDMI A", 2, "Connector=HDMI A is not a connector name such as HDMI-A-1"),
  BadConfig(
    "[Display]\nKeypadLayout=qwerty", 2, "KeypadLayout=qwerty is not one of phone or scrambled"),
  BadConfig(
    "[Display]\nOnScreenKeypad=maybe", 2, "OnScreenKeypad=maybe is not a boolean (use yes or no)"),
  BadConfig("[Keypad a]\nGrab=2", 2, "Grab=2 is not a boolean (use yes or no)"),
  BadConfig("[Display]\nSnapshotSize=800", 2, "SnapshotSize=800 is not a size like 800x480"),
  BadConfig(
    "[Display]\nSnapshotSize=800X480", 2, "SnapshotSize=800X480 is not a size like 800x480"),
  BadConfig(
    "[Display]\nSnapshotSize=-800x480", 2, "SnapshotSize=-800x480 is not a size like 800x480"),
  BadConfig(
    "[Display]\nSnapshotSize=15x480", 2, "SnapshotSize=15x480: width and height must be 16..8192"),
  BadConfig(
    "[Display]\nSnapshotSize=800x8193", 2,
    "SnapshotSize=800x8193: width and height must be 16..8192"),
  BadConfig("[Socket]\nPath=pinpadd.sock", 2, "Path=pinpadd.sock must be an absolute path"),
  // Between keys: the later line is blamed
  BadConfig("[Entry]\nMinLength=9\n\nMaxLength=8", 4, "MinLength=9 is larger than MaxLength=8"),
  BadConfig("[Entry]\nMaxLength=8\nMinLength=9", 3, "MinLength=9 is larger than MaxLength=8"),
  BadConfig("[Entry]\nMinLength=9", 2, "MinLength=9 is larger than MaxLength=8"),
  BadConfig("[Entry]\nMaxLength=3", 2, "MinLength=4 is larger than MaxLength=3"),
  BadConfig("[Lockout]\nLockoutSec=1000", 2, "LockoutSec=1000 is longer than LockoutMaxSec=900"),
  BadConfig(
    "[Lockout]\nLockoutSec=10\nLockoutMaxSec=9.5", 3,
    "LockoutSec=10 is longer than LockoutMaxSec=9.5"),
  BadConfig(
    "[Entry]\nSubmitKeys=", 2,
    "SubmitKeys= is empty and Length= is not set: no code could ever be submitted"),
  BadConfig(
    "[Entry]\nLength=\nSubmitKeys=", 3,
    "SubmitKeys= is empty and Length= is not set: no code could ever be submitted"),
  // A key set twice in one section of one file
  BadConfig("[Entry]\nLength=4\n\nLength=6", 4, "Length= is already set in [Entry] at line 2"),
  BadConfig(
    "[Entry]\nMinLength=4\n[Lockout]\nMaxFailures=3\n[Entry]\nMinLength=5", 6,
    "MinLength= is already set in [Entry] at line 2"),
  BadConfig(
    "[Keypad a]\nMatch=x\nGrab=no\nMatch=y", 4, "Match= is already set in [Keypad a] at line 2"),
  BadConfig("[Socket]\nGroup=\nGroup=door", 3, "Group= is already set in [Socket] at line 2"),
  BadConfig(
    "[Entry]\nClearKeys=KEY_ESC KEY_KPENTER", 2, "KEY_KPENTER is in both SubmitKeys and ClearKeys"),
  BadConfig(
    "[Entry]\nRevealKeys=KEY_BACKSPACE\nSubmitKeys=KEY_ENTER", 2,
    "KEY_BACKSPACE is in both BackspaceKeys and RevealKeys"),
  BadConfig(
    "[Socket]\nAllowUsers=\n[Socket]\nAllowGroups=", 4,
    "AllowUsers= and AllowGroups= are both empty: no controller could connect"),
])
func invalidConfigurationsNameTheirLine(_ bad: BadConfig) {
  #expect(
    error(bad.text) == ConfigError(path: "pinpadd.conf", line: bad.line, message: bad.message))
}

@Test func anErrorReadsAsPathLineMessage() {
  let problem = error("[Entry]\nMaxLength=8\n\n\n\n\nMinLength=9")
  #expect(problem?.description == "pinpadd.conf:7: MinLength=9 is larger than MaxLength=8")
}

@Test func anErrorInADropInNamesTheDropIn() {
  let problem = error([
    ("/etc/pinpadd/pinpadd.conf", "[Entry]\nMinLength=6\n"),
    ("/etc/pinpadd/pinpadd.conf.d/10-a.conf", "[Entry]\n# shorter codes\nMaxLength=5\n"),
    ("/etc/pinpadd/pinpadd.conf.d/20-b.conf", "[Display]\nPrompt=Hi\n"),
  ])
  #expect(
    problem?.description
      == "/etc/pinpadd/pinpadd.conf.d/10-a.conf:3: MinLength=6 is larger than MaxLength=5")
}

@Test func aCrossKeyErrorBlamesTheLaterFileEvenAtAnEarlierLine() {
  let problem = error([
    ("pinpadd.conf", "\n\n\n\n[Lockout]\nLockoutMaxSec=60\n"),
    ("pinpadd.conf.d/10.conf", "[Lockout]\nLockoutSec=120\n"),
  ])
  #expect(
    problem
      == ConfigError(
        path: "pinpadd.conf.d/10.conf", line: 2,
        message: "LockoutSec=120 is longer than LockoutMaxSec=60"))
}

@Test func aSameNamedKeypadInTwoFilesIsNoDuplicate() {
  #expect(error([("a.conf", "[Keypad x]\nGrab=no"), ("b.conf", "[Keypad x]\nGrab=yes")]) == nil)
  #expect(
    error([("a.conf", "[Keypad x]"), ("b.conf", "[Keypad x]\n[Keypad x]")])?.description
      == "b.conf:2: [Keypad x] is already defined at line 1")
}

@Test func aKeyMayBeSetOnceInEachSectionAndFileAndOverriddenByALaterFile() throws {
  let config = try parse([
    ("a.conf", "[Entry]\nLength=4\n[Keypad x]\nMatch=k\n[Keypad y]\nMatch=k\n"),
    ("b.conf", "[Entry]\nSubmitKeys=\nLength=6\n"),
  ])
  #expect(config.entry.length == 6)
  #expect(
    error([("a.conf", "[Entry]\nLength=4"), ("b.conf", "[Entry]\nLength=5\nLength=")])
      == ConfigError(
        path: "b.conf", line: 3, message: "Length= is already set in [Entry] at line 2"))
}

@Test func anErrorWithoutALineReadsAsPathMessage() {
  #expect(
    ConfigError(path: "/etc/x.conf", line: 0, message: "cannot read: No such file").description
      == "/etc/x.conf: cannot read: No such file")
}

@Test func aLaterDropInCanRepairAnEarlierCrossKeyProblem() throws {
  let config = try parse([("a.conf", "[Entry]\nMinLength=10"), ("b.conf", "[Entry]\nMaxLength=12")])
  #expect(config.entry.minLength == 10)
  #expect(config.entry.maxLength == 12)
}

// MARK: - render()

@Test func renderingTheDefaultsWritesEveryKey() throws {
  let text = Configuration().render()
  for key in ConfigParser.entryKeys + ConfigParser.lockoutKeys + ConfigParser.displayKeys
    + ConfigParser.socketKeys
  {
    #expect(text.contains("\n\(key)=") || text.contains("\n# \(key)="), "\(key)")
  }
  #expect(text.hasPrefix("[Entry]\nLength=\nMinLength=4\n"))
  #expect(text.contains("\nBurstIntervalSec=0.015\n"))
  #expect(text.contains("\n# Group=pinpadd (default)\n"))
  #expect(try parse(text) == Configuration())
}

@Test func renderingAFullConfigurationParsesBackEqual() throws {
  let config = everyKeyConfiguration()
  let text = config.render()
  #expect(text.contains("[Keypad front]\nMatch=usb:1a2c:0e24 *Keypad*\nGrab=no\n"))
  #expect(text.contains("\nAllowedDigits=13579\n"))
  #expect(text.contains("\nGroup=door\n"))
  #expect(try parse(text) == config)
}

@Test func renderingRoundTripsEmptyListsAndExplicitNames() throws {
  let configs = [
    try parse(specListing),
    try parse("[Entry]\nLength=4\nSubmitKeys=\nRevealKeys=\n[Socket]\nAllowUsers=\nAllowGroups=x"),
    try parse("[Keypad a]\nMatch=\n[Keypad b]\n[Entry]\nInterKeyTimeoutSec=0.000000001\n"),
  ]
  for config in configs {
    #expect(try parse(config.render()) == config)
    let again = try parse(config.render()).render()
    #expect(config.render() == again)
  }
}

// MARK: - Card readers (pinpadd.conf(5), [Keypad NAME])

@Test func theCardReaderListingOfSPEC9Parses() throws {
  let config = try parse(
    """
    [Keypad door]
    Match=name:Keypad
    CardReader=              # Match= tokens (as in Match=) for this keypad's card reader(s)
    CardMode=off             # off | card | card+pin | card-or-pin
    PinAfterCardSec=10       # card+pin: the PIN must follow the card within this long
    """)
  #expect(config.keypads[0].cardMode == .off)
  #expect(config.keypads[0].cardReader.isEmpty)
  #expect(config.keypads[0].pinAfterCard == .seconds(10))
}

@Test func everyCardModeIsReadAndRendered() throws {
  for mode in CardMode.allCases where mode != .off {
    let config = try parse(
      "[Keypad d]\nCardReader=name:Reader\nCardMode=\(mode.rawValue)\nPinAfterCardSec=0.25")
    #expect(config.keypads[0].cardMode == mode)
    #expect(config.keypads[0].pinAfterCard == .milliseconds(250))
    let text = config.render()
    #expect(
      text.contains(
        "CardReader=name:Reader\nCardMode=\(mode.rawValue)\nPinAfterCardSec=0.25\n"))
    #expect(try parse(text) == config)
  }
}

@Test(arguments: [
  BadConfig(
    "[Keypad d]\nMatch=x\nCardMode=card+pin", 3,
    "[Keypad d] CardMode=card+pin needs CardReader= (the reader's Match= tokens)"),
  BadConfig(
    "[Keypad d]\nCardReader=name:Reader\nGrab=no", 2,
    "[Keypad d] has CardReader= but CardMode=off: set CardMode=card, card+pin or card-or-pin, or remove CardReader="
  ),
  BadConfig(
    "[Keypad d]\nCardMode=card\nCardReader=Reader\nCardReader=", 4,
    "CardReader= is already set in [Keypad d] at line 3"),
  BadConfig(
    "[Keypad d]\nCardMode=cardpin", 2,
    "CardMode=cardpin is not one of off, card, card+pin or card-or-pin"),
  BadConfig(
    "[Keypad d]\nCardReader=usb:12", 2,
    "CardReader= token usb:12 is not usb:VVVV:PPPP (four hex digits each)"),
  BadConfig("[Keypad d]\nPinAfterCardSec=0", 2, "PinAfterCardSec=0 must be more than 0"),
  BadConfig("[Keypad d]\nPinAfterCardSec=-1", 2, "PinAfterCardSec=-1 must not be negative"),
  BadConfig(
    "[Keypad d]\nPinAfterCardSec=300.5", 2,
    "PinAfterCardSec=300.5 is too long (at most 300 seconds)"),
  BadConfig(
    "[Keypad d]\ncardmode=card", 2, "unknown key cardmode in [Keypad d] (did you mean CardMode?)"),
])
func badCardKeys(_ bad: BadConfig) {
  let e = error(bad.text)
  #expect(e?.path == "pinpadd.conf")
  #expect(e?.line == bad.line)
  #expect(e?.message == bad.message)
}

@Test func aCardModeInADropInBlamesItsOwnFileAndLine() {
  let e = error([
    ("pinpadd.conf", "[Keypad d]\nMatch=x\n"),
    ("pinpadd.conf.d/card.conf", "[Keypad d]\n\nCardMode=card"),
  ])
  #expect(e?.path == "pinpadd.conf.d/card.conf")
  #expect(e?.line == 3)
}

@Test func aDropInMayTurnCardsOffWithBothKeys() throws {
  let config = try parse([
    ("pinpadd.conf", "[Keypad d]\nCardReader=Reader\nCardMode=card"),
    ("pinpadd.conf.d/off.conf", "[Keypad d]\nCardReader=\nCardMode=off"),
  ])
  #expect(config.keypads[0].cardMode == .off)
}

// MARK: - Feedback (pinpadd.conf(5), [Keypad NAME] Feedback=)

@Test func feedbackIsAutoUnlessSetToNoneAndIsRendered() throws {
  #expect(try parse("[Keypad d]\nMatch=x\n").keypads[0].feedback == .auto)
  #expect(try parse("[Keypad d]\nMatch=x\nFeedback=\n").keypads[0].feedback == .auto)
  let config = try parse("[Keypad d]\nMatch=x\nFeedback=none\n")
  #expect(config.keypads[0].feedback == .none)
  let text = config.render()
  #expect(text.contains("PinAfterCardSec=10\nFeedback=none\n"))
  #expect(try parse(text) == config)
}

@Test(arguments: [
  BadConfig("[Keypad d]\nFeedback=loud", 2, "Feedback=loud is not one of auto or none"),
  BadConfig(
    "[Keypad d]\nfeedback=none", 2, "unknown key feedback in [Keypad d] (did you mean Feedback?)"),
])
func badFeedbackKeys(_ bad: BadConfig) {
  let e = error(bad.text)
  #expect(e?.path == "pinpadd.conf")
  #expect(e?.line == bad.line)
  #expect(e?.message == bad.message, "\(String(describing: e?.message))")
}
