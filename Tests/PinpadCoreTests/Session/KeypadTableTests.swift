import Testing

@testable import PinpadCore

/// The Session's keypads (`KeypadTable`), as a value: name order, lookups, in-place
/// changes.
@Suite struct KeypadTableTests {
  static func keypad(_ name: String) -> Keypad {
    Keypad(
      name: name, machine: EntryMachine(rules: .testing(), lockout: .testing()), config: nil)
  }

  static func table(_ names: String...) -> KeypadTable {
    var table = KeypadTable()
    for name in names { _ = table.insert(keypad(name)) }
    return table
  }

  @Test("keypads are kept in name order, whatever order they came in")
  func nameOrder() {
    var table = KeypadTable()
    #expect(table.insert(Self.keypad("zone")) == 0)
    #expect(table.insert(Self.keypad("alarm")) == 0)
    #expect(table.insert(Self.keypad("door")) == 1)
    #expect(table.map(\.name) == ["alarm", "door", "zone"])
  }

  @Test("a keypad is found by name after others were inserted before it")
  func foundAfterInserts() {
    var table = Self.table("m")
    #expect(table.find("m") == 0)
    _ = table.insert(Self.keypad("a"))
    _ = table.insert(Self.keypad("b"))
    #expect(table.index(of: "m") == 2, "the last one found moved: found by its name")
    #expect(table.find("m") == 2)
    #expect(table.index(of: "a") == 0)
    #expect(table["b"]?.name == "b")
    #expect(table.index(of: "x") == nil)
    #expect(table["x"] == nil)
    #expect(table.find("x") == nil)
  }

  @Test("a keypad is changed in place by index")
  func changedInPlace() {
    var table = Self.table("door", "gate")
    var actions: [EntryAction] = []
    table[1].machine.handle(.key(key("KP1"), value: 1), now: Instant.zero, into: &actions)
    #expect(table["gate"]?.machine.length == 1)
    #expect(table["door"]?.machine.length == 0)
  }

  @Test("removeAll leaves no keypad to find")
  func removeAll() {
    var table = Self.table("door", "gate")
    _ = table.find("gate")
    table.removeAll()
    #expect(table.isEmpty)
    #expect(table.index(of: "gate") == nil)
    #expect(table.insert(Self.keypad("lobby")) == 0)
    #expect(table.find("lobby") == 0)
  }
}
