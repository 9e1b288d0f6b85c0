/// The Session's keypads, in name order (the order ticks, reloads and `status` take
/// them in), found by name. A keypad is added at its first event; one added moves those
/// after it, so an index is held only across calls that add none.
public struct KeypadTable: RandomAccessCollection {
  private var list: [Keypad] = []
  /// Where each keypad of `list` is, by name.
  private var positions: [String: Int] = [:]
  /// The index `find(_:)` returned last: events come in runs from one keypad, and a
  /// name compare is cheaper than hashing it. Checked by name before use, so it is never
  /// wrong, only unhelpful.
  private var last = 0

  public init() {}

  public var startIndex: Int { list.startIndex }
  public var endIndex: Int { list.endIndex }

  /// In place: a keypad is never copied out to be changed (its entry machine's arrays
  /// would be copied with it). `_modify`, as the standard library's own collections do.
  public internal(set) subscript(position: Int) -> Keypad {
    get { list[position] }
    _modify { yield &list[position] }
  }

  /// The keypad named `name`, nil before its first event.
  public subscript(name: String) -> Keypad? { index(of: name).map { list[$0] } }

  /// Where `name` is, nil before its first event (the last one found is tried first).
  public func index(of name: String) -> Int? {
    if last < list.endIndex, list[last].name == name { return last }
    return positions[name]
  }

  /// `index(of:)`, remembered as the one tried first next time.
  mutating func find(_ name: String) -> Int? {
    guard let index = index(of: name) else { return nil }
    last = index
    return index
  }

  /// Adds `keypad` in name order (a new name); returns where it is, remembered as
  /// `find` remembers.
  mutating func insert(_ keypad: Keypad) -> Int {
    let at = list.firstIndex { $0.name > keypad.name } ?? list.endIndex
    list.insert(keypad, at: at)
    for i in at..<list.endIndex { positions[list[i].name] = i }
    last = at
    return at
  }

  mutating func removeAll() {
    list = []
    positions = [:]
    last = 0
  }
}
