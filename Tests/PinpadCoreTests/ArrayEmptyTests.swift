import PinpadCore
import Testing

/// `Array.empty()`, the per-event buffers' reset: no element left, none kept alive, the
/// storage kept (so the next event allocates nothing).
@Suite struct ArrayEmptyTests {
  final class Box {}

  @Test func emptyRemovesAndReleasesEveryElementAndKeepsTheStorage() {
    var boxes = [Box(), Box(), Box()]
    weak var first = boxes[0]
    weak var last = boxes[2]
    boxes.reserveCapacity(16)
    let capacity = boxes.capacity
    let storage = boxes.withUnsafeBufferPointer { $0.baseAddress }
    boxes.empty()
    #expect(boxes.isEmpty)
    #expect(first == nil && last == nil, "an element outlived the buffer's reset")
    #expect(boxes.capacity == capacity)
    boxes.append(Box())
    #expect(boxes.withUnsafeBufferPointer { $0.baseAddress } == storage)
    var none: [Int] = []
    none.empty()
    #expect(none.isEmpty)
  }
}
