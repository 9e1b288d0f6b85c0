extension Configuration {
  /// The effective configuration in the same INI syntax, every key written out,
  /// re-parseable to an equal Configuration (for `pinpadd --check-config`).
  ///
  /// Nothing here is secret: no configuration key holds a code.
  public func render() -> String {
    func keys(_ list: [KeyCode]) -> String { list.map(\.name).joined(separator: " ") }
    func seconds(_ duration: Duration) -> String { ConfigValue.secondsText(duration) }
    func boolean(_ value: Bool) -> String { value ? "yes" : "no" }

    let implicitSocketKeys = Set(["Group", "AllowUsers", "AllowGroups"]).subtracting(
      socket.explicitKeys)
    var lines: [String] = []
    func section(_ title: String, _ pairs: [(String, String)]) {
      if !lines.isEmpty { lines.append("") }
      lines.append(title)
      for (key, value) in pairs {
        // Group=, AllowUsers=, AllowGroups= behave differently once written
        // (pinpadd.conf(5), [Socket]): a default one stays a comment so the output
        // re-parses to the same thing.
        let isDefault = title == "[Socket]" && implicitSocketKeys.contains(key)
        lines.append(isDefault ? "# \(key)=\(value) (default)" : "\(key)=\(value)")
      }
    }

    section(
      "[Entry]",
      [
        ("Length", entry.length.map(String.init) ?? ""),
        ("MinLength", String(entry.minLength)),
        ("MaxLength", String(entry.maxLength)),
        ("SubmitKeys", keys(entry.submitKeys)),
        ("BackspaceKeys", keys(entry.backspaceKeys)),
        ("ClearKeys", keys(entry.clearKeys)),
        ("RevealKeys", keys(entry.revealKeys)),
        ("AllowedDigits", entry.allowedDigits.sorted().map(String.init).joined()),
        ("InterKeyTimeoutSec", seconds(entry.interKeyTimeout)),
        ("TotalTimeoutSec", seconds(entry.totalTimeout)),
        ("BurstIntervalSec", seconds(entry.burstInterval)),
        ("Bursts", entry.bursts.rawValue),
        ("Mask", entry.mask.rawValue),
        ("RevealSec", seconds(entry.reveal)),
      ])
    section(
      "[Lockout]",
      [
        ("MaxFailures", String(lockout.maxFailures)),
        ("LockoutSec", seconds(lockout.lockout)),
        ("LockoutMaxSec", seconds(lockout.lockoutMax)),
      ])
    for keypad in keypads {
      section(
        "[Keypad \(keypad.name)]",
        [
          ("Match", keypad.match.joined(separator: " ")),
          ("Grab", boolean(keypad.grab)),
          ("CardReader", keypad.cardReader.joined(separator: " ")),
          ("CardMode", keypad.cardMode.rawValue),
          ("PinAfterCardSec", seconds(keypad.pinAfterCard)),
          ("Feedback", keypad.feedback.rawValue),
        ])
    }
    for door in doors { section("[Door \(door.name)]", door.rendered()) }
    section(
      "[Display]",
      [
        ("Output", display.output.rawValue),
        ("Device", display.device),
        ("Font", display.font),
        ("Prompt", display.prompt),
        ("OnScreenKeypad", boolean(display.onScreenKeypad)),
        ("KeypadLayout", display.keypadLayout.rawValue),
        ("SnapshotSize", "\(display.snapshotWidth)x\(display.snapshotHeight)"),
        ("Connector", display.connector),
        ("Mode", display.mode.map { "\($0.width)x\($0.height)" } ?? ""),
        ("Rotate", display.rotate.map { String($0.rawValue) } ?? ""),
      ])
    section(
      "[Socket]",
      [
        ("Path", socket.path),
        ("Group", socket.group),
        ("AllowUsers", socket.allowUsers.joined(separator: " ")),
        ("AllowGroups", socket.allowGroups.joined(separator: " ")),
        ("DeliveryTimeoutSec", seconds(socket.deliveryTimeout)),
        ("VerdictTimeoutSec", seconds(socket.verdictTimeout)),
      ])
    if mqtt.isPresent {
      section("[MQTT]", MQTTConfig.keys.map { ($0, mqtt.value($0)) })
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
