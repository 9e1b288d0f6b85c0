/// One keypad's part of the `Session`: its entry, its card reader's slot and its
/// `[Keypad]` section, kept together so that one lookup by name finds all three.
public struct Keypad {
  public let name: String
  public internal(set) var machine: EntryMachine
  /// The card being read and the card held for a PIN; nil until the keypad's reader
  /// first types (a slot holds locked memory, so a keypad without a reader has none).
  public internal(set) var card: CardSlot?
  /// Its `[Keypad]` section, nil for one that has none ("default", the screen's keypad).
  public internal(set) var config: KeypadConfig?

  init(name: String, machine: EntryMachine, config: KeypadConfig?) {
    self.name = name
    self.machine = machine
    self.config = config
  }

  /// `off` for a keypad without a section.
  public var cardMode: CardMode { config?.cardMode ?? .off }

  public var pinAfterCard: Duration {
    config?.pinAfterCard ?? KeypadConfig(name: "").pinAfterCard
  }
}
