import PinpadCore
import Testing

@Test func tapOnAKeyShowsItPressedThenActivatesIt() {
  var pad = PadPress()
  #expect(pad.handle(.pressed(x: 1, y: 1), key: .digit(5)) == nil)
  #expect(pad.shown == .digit(5))
  #expect(pad.handle(.released(x: 1, y: 1), key: .digit(5)) == .digit(5))
  #expect(pad.shown == nil)
}

@Test func releaseOnAnotherKeyActivatesNothing() {
  var pad = PadPress()
  _ = pad.handle(.pressed(x: 1, y: 1), key: .digit(5))
  _ = pad.handle(.moved(x: 2, y: 2), key: .digit(6))
  #expect(pad.shown == nil)
  #expect(pad.handle(.released(x: 2, y: 2), key: .digit(6)) == nil)
}

@Test func slidingOffAndBackPressesTheKeyAgain() {
  var pad = PadPress()
  _ = pad.handle(.pressed(x: 1, y: 1), key: .ok)
  _ = pad.handle(.moved(x: 9, y: 9), key: nil)
  #expect(pad.shown == nil)
  _ = pad.handle(.moved(x: 1, y: 1), key: .ok)
  #expect(pad.shown == .ok)
  #expect(pad.handle(.released(x: 1, y: 1), key: .ok) == .ok)
}

@Test func pressOutsideTheKeysActivatesNothingWhereverItEnds() {
  var pad = PadPress()
  _ = pad.handle(.pressed(x: 1, y: 1), key: nil)
  _ = pad.handle(.moved(x: 2, y: 2), key: .backspace)
  #expect(pad.shown == nil)
  #expect(pad.handle(.released(x: 2, y: 2), key: .backspace) == nil)
}

@Test func cancelledPressActivatesNothing() {
  var pad = PadPress()
  _ = pad.handle(.pressed(x: 1, y: 1), key: .digit(0))
  pad.cancel()
  #expect(pad.shown == nil)
  #expect(pad.handle(.released(x: 1, y: 1), key: .digit(0)) == nil)
}

@Test func padKeysTypeMainRowDigitsAndTheFirstConfiguredKeys() {
  var rules = EntryConfig()
  #expect(PadKey.digit(0).keyCode(rules: rules) == KeyCode(name: "KEY_0"))
  #expect(PadKey.digit(7).keyCode(rules: rules) == KeyCode(name: "KEY_7"))
  #expect(PadKey.backspace.keyCode(rules: rules) == .backspace)
  #expect(PadKey.ok.keyCode(rules: rules) == .enter)
  rules.submitKeys = [.kpEnter]
  #expect(PadKey.ok.keyCode(rules: rules) == .kpEnter)
  rules.submitKeys = []
  #expect(PadKey.ok.keyCode(rules: rules) == nil)
}
