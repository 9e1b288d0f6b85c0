import Testing

@testable import PinpadCore

/// The digits' buffer and the slots it lives in (`SecretSlots`): handed out zeroed,
/// never two holders at once, every byte zeroed when given back.
@Suite struct SecretDigitsTests {
  @Test("take moves the digits and wipes the source; a reused slot starts zeroed")
  func takeAndReuse() {
    var seen: [UInt8] = []
    for round in 0..<300 {
      let entry = SecretDigits()
      #expect(entry.isEmpty)
      for d in 0..<(round % SecretDigits.capacity + 1) { entry.append(UInt8(d % 10)) }
      let taken = entry.take()
      #expect(entry.isEmpty)
      #expect(taken.count == round % SecretDigits.capacity + 1)
      taken.withASCII { seen = Array($0) }
      #expect(seen.first == UInt8(ascii: "0"))
    }
    // Slots given back by the rounds above are handed out again: all zero.
    let fresh = (0..<300).map { _ in SecretDigits() }
    let dirty = fresh.filter { digits in
      (0..<SecretDigits.capacity).contains { i in
        digits.withStorage { $0[i] != 0 }
      }
    }
    #expect(dirty.isEmpty)
  }

  @Test("slots are distinct, 32-byte aligned and zeroed, from many threads at once")
  func slotsAreDistinct() async {
    let addresses = await withTaskGroup(of: [UInt].self) { group in
      for _ in 0..<8 {
        group.addTask {
          let held = (0..<200).map { _ in SecretSlots.take() }
          var result: [UInt] = []
          for slot in held {
            let zero = (0..<SecretSlots.slotBytes).allSatisfy { slot[$0] == 0 }
            // A marker that a second holder of the same slot would see.
            for i in 0..<SecretSlots.slotBytes { slot[i] = 0xA5 }
            result.append(zero ? UInt(bitPattern: slot) : 0)
          }
          for slot in held {
            let intact = (0..<SecretSlots.slotBytes).allSatisfy { slot[$0] == 0xA5 }
            for i in 0..<SecretSlots.slotBytes { slot[i] = 0 }
            SecretSlots.give(slot)
            if !intact { result.append(1) }
          }
          return result
        }
      }
      var all: [UInt] = []
      for await part in group { all += part }
      return all
    }
    #expect(!addresses.contains(0), "a slot was handed out dirty")
    #expect(!addresses.contains(1), "a slot was written by another holder")
    #expect(addresses.allSatisfy { $0 % UInt(SecretSlots.slotBytes) == 0 })
  }
}

extension SecretDigits {
  /// The raw slot, for the tests above.
  fileprivate func withStorage<R>(_ body: (UnsafeMutablePointer<UInt8>) -> R) -> R {
    body(storageForTests)
  }
}
