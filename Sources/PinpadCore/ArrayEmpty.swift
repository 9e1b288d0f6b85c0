extension Array {
  /// Removes every element and keeps the storage, for the buffers reused from event to
  /// event, which hold a few elements each time: popping them is cheaper than
  /// `removeAll(keepingCapacity:)`, which goes through `replaceSubrange` (a tenth of a
  /// fast replay's work in the daemon's loop went there).
  @inlinable public mutating func empty() {
    while popLast() != nil {}
  }
}
