import PinpadCore
import Testing

/// Card readers (pinpadd(8), CARD READERS) and duress (docs/protocol.md, "Socket:
/// alarm"), on the Session with a manual clock.
@Suite struct SessionCardTests {
  static func keypad(_ mode: CardMode, pinAfter: Duration = .seconds(10)) -> (
    inout Configuration
  ) -> Void {
    { config in
      var door = KeypadConfig(name: "door")
      door.match = ["name:Keypad"]
      door.cardReader = ["name:Reader"]
      door.cardMode = mode
      door.pinAfterCard = pinAfter
      config.keypads = [door]
    }
  }

  static func script(_ mode: CardMode, pinAfter: Duration = .seconds(10)) -> SessionScript {
    var s = SessionScript(keypad(mode, pinAfter: pinAfter))
    s.keypad = "door"
    return s
  }

  @Test("card+pin: a card, then the PIN, gives one code with both; both buffers wiped")
  func cardThenPin() {
    var s = Self.script(.cardPin)
    #expect(s.run("clients=1 card:0012345678") == "entry(door,card_read,0)")
    #expect(s.session.card("door")?.held != nil)
    #expect(s.logged("card read, waiting for the PIN"))
    let trace = s.run("1 2 3 4 ENTER")
    #expect(trace.hasSuffix("code(ab-1,door)"))
    #expect(s.sent.count == 1)
    #expect(s.sent[0].digits == "1234")
    #expect(s.sent[0].card == "0012345678")
    #expect(s.sent[0].buffer.count == 0 && s.sent[0].cardBuffer?.count == 0)
    #expect(s.session.card("door")?.held == nil)
  }

  @Test("card+pin: the screen asks for the PIN after a card and never shows the card")
  func cardPinPrompt() {
    var s = Self.script(.cardPin)
    s.run("card:0012345678 end")
    let frame = s.lastFrame!
    #expect(frame.prompt == ScreenText.cardReadPrompt)
    #expect(frame.filled == 0 && frame.digits == nil)
    s.run("1 end")
    #expect(s.lastFrame?.prompt == ScreenText.cardReadPrompt)
    #expect(s.lastFrame?.filled == 1)
    s.run("2 3 4 ENTER end")
    #expect(s.lastFrame?.prompt == "Enter PIN", "the prompt stays after the PIN went")
  }

  @Test("card+pin: keypad digits without a card get feedback and change nothing")
  func digitsWithoutCard() {
    var s = Self.script(.cardPin)
    #expect(s.run("clients=1 1 2 3 4 ENTER end") == "")
    #expect(s.lastFrame?.notice == ScreenText.presentCard)
    #expect(s.lastFrame?.filled == 0)
    #expect(s.sent.isEmpty)
    #expect(s.session.machine("door")?.phase == .idle)
  }

  @Test("card+pin: no PIN within PinAfterCardSec wipes the card with a timeout event")
  func pinAfterCardTimeout() {
    var s = Self.script(.cardPin, pinAfter: .milliseconds(2500))
    s.run("clients=1 card:0012345678 +1 1 2")
    let held = s.session.card("door")!.held!
    #expect(s.session.nextWakeup == s.at("2.5"))
    #expect(s.run("@2.499 tick") == "")
    #expect(s.run("@2.5 tick") == "entry(door,timeout,0)")
    #expect(held.count == 0, "the card outlived its time")
    #expect(s.session.card("door")?.held == nil)
    #expect(s.session.machine("door")?.length == 0)
    #expect(s.logged("card wiped, no PIN within 2.5 s"))
    // The PIN alone is refused again.
    #expect(s.run("3 4 ENTER") == "")
    #expect(s.sent.isEmpty)
  }

  @Test("card+pin: a timeout event also when no digit was typed")
  func timeoutWithNoDigits() {
    var s = Self.script(.cardPin, pinAfter: .seconds(3))
    s.run("card:77")
    #expect(s.run("wait") == "entry(door,timeout,0)")
  }

  @Test("card+pin: a second card replaces the first and wipes the PIN typed for it")
  func secondCardReplaces() {
    var s = Self.script(.cardPin)
    s.run("clients=1 card:1111 1 2")
    let first = s.session.card("door")!.held!
    #expect(s.run("+3 card:2222") == "entry(door,cleared,0) entry(door,card_read,0)")
    #expect(first.count == 0, "the first card was not wiped")
    #expect(s.logged("card replaced, waiting for the PIN"))
    // The new card has its full time again.
    #expect(s.session.machine("door")?.length == 0)
    #expect(s.session.card("door")?.heldUntil == s.at("13"))
    s.run("5 6 7 8 ENTER")
    #expect(s.sent.map(\.card) == ["2222"])
    #expect(s.sent.map(\.digits) == ["5678"])
  }

  @Test("card: a card is submitted at once, alone; keypad digits are refused")
  func cardMode() {
    var s = Self.script(.card)
    #expect(s.run("clients=1 card:0012345678").hasSuffix("code(ab-1,door)"))
    #expect(s.sent.map(\.card) == ["0012345678"])
    #expect(s.sent.map(\.digits) == [""])
    #expect(s.logged("keypad door: card submitted as attempt ab-1"))
    s.run("granted")
    #expect(s.run("+4 1 2 3 4 ENTER end") == "")
    #expect(s.lastFrame?.notice == ScreenText.presentCard)
    #expect(s.sent.count == 1)
  }

  @Test("card-or-pin: a card alone and a PIN alone are both accepted")
  func cardOrPin() {
    var s = Self.script(.cardOrPin)
    s.run("clients=1 card:42 granted")
    s.run("+4 1 2 3 4 ENTER granted")
    #expect(s.sent.map(\.card) == ["42", nil])
    #expect(s.sent.map(\.digits) == ["", "1234"])
  }

  @Test("card-or-pin: a card during a typed PIN goes alone and wipes the partial PIN")
  func cardDuringPin() {
    var s = Self.script(.cardOrPin)
    let trace = s.run("clients=1 1 2 card:42")
    #expect(trace.contains("entry(door,cleared,0)"))
    #expect(trace.hasSuffix("code(ab-1,door)"))
    #expect(s.sent.map(\.digits) == [""])
  }

  @Test("denied cards count toward the lockout; a locked keypad ignores cards")
  func cardLockout() {
    // .testing() locks after 3 denials for 30 s.
    var s = Self.script(.card)
    s.run("clients=1 card:1 denied card:2 denied")
    #expect(s.session.machine("door")?.lockoutState.failures == 2)
    #expect(s.run("card:3 denied").contains("lockout(door,30)"))
    #expect(s.run("+1 card:4") == "entry(door,rejected,0)")
    #expect(s.sent.count == 3)
    #expect(s.logged("card refused, the keypad is locked or busy"))
    #expect(s.session.card("door")?.held == nil)
    // Once the lock ends, cards go again.
    s.run("+30 tick card:5")
    #expect(s.sent.count == 4)
  }

  @Test("card+pin: a denial of a card and PIN counts; a card while checking is refused")
  func cardPinLockoutAndBusy() {
    var s = Self.script(.cardPin)
    s.run("clients=1 card:1 1 2 3 4 ENTER")
    #expect(s.run("card:2 end") == "")
    #expect(s.lastFrame?.notice == "Please wait")
    #expect(s.session.card("door")?.held == nil)
    s.run("denied")
    #expect(s.session.machine("door")?.lockoutState.failures == 1)
  }

  @Test("a reader types faster than any burst rule: Bursts=reject does not touch cards")
  func readerBurst() {
    var s = SessionScript {
      Self.keypad(.cardPin)(&$0)
      $0.entry.burstInterval = .milliseconds(15)
      $0.entry.bursts = .reject
      $0.entry.allowedDigits = Set(1...9)  // AllowedDigits is for PINs, not cards
    }
    s.keypad = "door"
    s.run("clients=1 card:00990099")
    #expect(s.session.card("door")?.held != nil)
    s.run("+0.1 1 +0.1 2 +0.1 3 +0.1 4 +0.1 ENTER +0.1 tick")
    #expect(s.sent.map(\.card) == ["00990099"])
  }

  @Test("a non-digit key from the reader rejects the card with feedback")
  func nonDigitRejects() {
    var s = Self.script(.card)
    s.run("clients=1 rd:1 rd:2 rd:A rd:3 rd:ENTER end")
    #expect(s.sent.isEmpty)
    #expect(s.lastFrame?.notice == "Card not read, try again")
    #expect(s.logged("card rejected"))
    // The next read starts clean.
    s.run("card:55")
    #expect(s.sent.map(\.card) == ["55"])
  }

  @Test("more than 32 digits from the reader reject the card; 32 are accepted")
  func maxLength() {
    var s = Self.script(.card)
    let longest = String(repeating: "9", count: CardSlot.maxDigits)
    s.run("clients=1 card:\(longest) granted")
    #expect(s.sent.map(\.card) == [longest])
    s.run("+4 card:\(longest)1")
    #expect(s.sent.count == 1)
    #expect(s.logged("card rejected"))
  }

  @Test("a read that stops before its Enter is dropped; SYN_DROPPED drops the read")
  func stalledAndDropped() {
    var s = Self.script(.card)
    s.run("clients=1 rd:1 rd:2")
    #expect(s.session.card("door")?.readingCount == 2)
    #expect(s.session.nextWakeup == s.now + CardSlot.readTimeout)
    s.run("wait")
    #expect(s.session.card("door")?.readingCount == 0)
    s.run("rd:3 rdropped rd:4 rd:ENTER")
    #expect(s.sent.map(\.card) == ["4"])
  }

  @Test("a keypad with CardMode=off, or a reader's Enter alone, makes no card")
  func noCard() {
    var s = Self.script(.off)
    #expect(s.run("clients=1 card:1234") == "")
    #expect(s.session.keypads.allSatisfy { $0.card == nil })
    var t = Self.script(.card)
    #expect(t.run("clients=1 rd:ENTER") == "")
    #expect(t.sent.isEmpty)
  }

  @Test("no card digit in any log line, at any level, nor in entry events")
  func cardNeverLogged() {
    var s = Self.script(.cardPin)
    let trace = s.run("clients=1 card:9081726354 1 2 3 4 ENTER denied card:9081726354 wait")
    for (_, line) in s.logs { #expect(!line.contains("9081726354"), "\(line)") }
    #expect(!trace.contains("9081726354"))
    #expect(!String(describing: s.session.card("door")!).contains("9"))
  }

  @Test("a reload to CardMode=off wipes a held card")
  func reloadWipes() {
    var s = Self.script(.cardPin)
    s.run("card:1234")
    let held = s.session.card("door")!.held!
    var config = s.session.config
    config.keypads[0].cardMode = .off
    config.keypads[0].cardReader = []
    s.send(.reload(config))
    #expect(held.count == 0)
    #expect(s.session.card("door") == nil)
  }

  @Test("end() wipes the card being read and the card held")
  func endWipes() {
    var s = Self.script(.cardPin)
    s.run("card:1234")
    let held = s.session.card("door")!.held!
    s.session.end()
    #expect(held.count == 0)
    #expect(s.session.keypads.allSatisfy { $0.card == nil })
  }

  @Test("duress: the verdict, then the alarm to every client; the screen an ordinary grant")
  func duress() {
    var s = Self.script(.off)
    s.run("clients=1 1 2 3 4 ENTER")
    let trace = s.run("granted!")
    #expect(trace.hasPrefix("verdict(ab-1,granted) alarm(duress,door,ab-1)"))
    #expect(s.logged("attempt ab-1 on keypad door: duress alarm"))
    s.run("end")
    #expect(s.lastFrame?.phase == .granted(message: nil))
    // The same screen and events as a plain grant.
    var plain = Self.script(.off)
    plain.run("clients=1 1 2 3 4 ENTER")
    let plainTrace = plain.run("granted")
    let withoutAlarm = trace.split(separator: " ").filter { !$0.hasPrefix("alarm(") }
    #expect(withoutAlarm.joined(separator: " ") == plainTrace)
    plain.run("end")
    #expect(plain.lastFrame == s.lastFrame)
  }

  @Test("a denied verdict with duress still raises the alarm (never dropped)")
  func duressDenied() {
    var s = Self.script(.off)
    s.run("clients=1 1 2 3 4 ENTER")
    let trace = s.send(
      .verdict(id: s.id("ab-1"), granted: false, message: nil, duress: true, client: 1))
    #expect(trace.hasPrefix("verdict(ab-1,denied) alarm(duress,door,ab-1)"))
  }

  @Test("a duress verdict for an unknown id raises no alarm")
  func duressUnknown() {
    var s = Self.script(.off)
    let trace = s.send(
      .verdict(id: "zz-9", granted: true, message: nil, duress: true, client: 1))
    #expect(trace == "reply#1:error(unknown attempt id)")
  }
}

@Suite struct CardSlotTests {
  @Test("a card's digits are zeroed when taken, replaced and wiped")
  func zeroing() {
    var slot = CardSlot()
    let t = Instant(nanoseconds: 0)
    for d in ["KP1", "KP2"] { _ = slot.key(key(d), value: 1, now: t) }
    #expect(slot.key(.enter, value: 1, now: t) == .card)
    let card = slot.take()
    #expect(string(card) == "12")
    #expect(slot.readingCount == 0)
    slot.hold(card, until: t + .seconds(1))
    slot.hold(SecretDigits(), until: t + .seconds(2))
    #expect(card.count == 0, "a replaced card was not wiped")
    let expired = slot.expire(now: t + .seconds(2))
    #expect(expired)
    #expect(slot.held == nil)
  }

  @Test("releases, repeats and NumLock wrappers are not keys of a card")
  func onlyPresses() {
    var slot = CardSlot()
    let t = Instant(nanoseconds: 0)
    _ = slot.key(key("KP7"), value: 1, now: t)
    _ = slot.key(key("KP7"), value: 2, now: t)
    _ = slot.key(key("KP7"), value: 0, now: t)
    _ = slot.key(.numLock, value: 1, now: t)
    #expect(slot.readingCount == 1)
    #expect(slot.key(.kpEnter, value: 1, now: t) == .card)
  }
}

/// Issue 24.4 and 24.5: what a card reader says, and its unplugging.
extension SessionCardTests {
  @Test("card+pin: a card taken gives entry card_read with length 0, after any cleared")
  func cardReadEvent() {
    var s = Self.script(.cardPin)
    #expect(s.run("clients=1 card:0012345678") == "entry(door,card_read,0)")
    s.run("1 2")
    #expect(s.run("card:0098765432") == "entry(door,cleared,0) entry(door,card_read,0)")
    for line in s.trace { #expect(!line.contains("0012345678") && !line.contains("0098765432")) }
  }

  @Test("card: card_read comes before the code it is submitted as")
  func cardReadBeforeCode() {
    var s = Self.script(.card)
    #expect(
      s.run("clients=1 card:42")
        == "entry(door,card_read,0) notify(STATUS=Checking attempt ab-1) code(ab-1,door)")
  }

  @Test("no card_read for a read that is not a card, nor for a card a busy keypad refuses")
  func noCardReadWhenRefused() {
    var s = Self.script(.cardPin)
    #expect(!s.run("clients=1 card:1 1 2 3 4 ENTER").isEmpty)
    #expect(!s.run("card:2").contains("card_read"), "checking: refused")
    #expect(!s.run("denied +1 rd:KP1 rd:A rd:ENTER").contains("card_read"))
  }

  @Test("keypad and card reader devices are announced with their role")
  func deviceRoles() {
    var s = Self.script(.cardPin)
    #expect(
      s.send(.deviceAdded(keypad: "door", path: "/dev/input/event5", role: .cardReader))
        == "keypad(door,added,/dev/input/event5,card_reader)")
    #expect(
      s.send(.deviceAdded(keypad: "door", path: "/dev/input/event4"))
        == "keypad(door,added,/dev/input/event4,keypad)")
    #expect(s.logged("keypad door: /dev/input/event5 added (card reader)"))
  }

  @Test("card+pin: the reader unplugged wipes the held card and the PIN typed for it")
  func readerUnplugWipesHeldCard() {
    var s = Self.script(.cardPin)
    s.run("clients=1 card:0012345678 1 2 end")
    let held = s.session.card("door")!.held!
    #expect(s.lastFrame?.prompt == ScreenText.cardReadPrompt)
    #expect(
      s.send(.deviceRemoved(keypad: "door", path: "/dev/input/event5", role: .cardReader))
        == "keypad(door,removed,/dev/input/event5,card_reader) entry(door,cleared,0)")
    #expect(held.count == 0, "the held card outlived its reader")
    #expect(s.session.card("door")?.held == nil)
    #expect(s.session.nextWakeup == nil, "no PinAfterCardSec deadline is left")
    #expect(s.logged("keypad door: card reader removed, the held card is wiped"))
    s.run("end")
    #expect(s.lastFrame?.prompt == "Enter PIN")
    // The rest of that PIN needs a card again; a card from the reader plugged back works.
    #expect(s.run("3 4 ENTER") == "")
    #expect(s.sent.isEmpty)
    s.send(.deviceAdded(keypad: "door", path: "/dev/input/event6", role: .cardReader))
    s.run("card:0055 5 6 7 8 ENTER")
    #expect(s.sent.map(\.card) == ["0055"])
    #expect(s.sent.map(\.digits) == ["5678"])
  }

  @Test("the reader unplugged mid-read drops the read; the keypad unplugged keeps the card")
  func unplugMidReadAndKeypadUnplug() {
    var s = Self.script(.cardPin)
    s.run("clients=1 rd:KP1 rd:KP2")
    #expect(
      s.send(.deviceRemoved(keypad: "door", path: "/dev/input/event5", role: .cardReader))
        == "keypad(door,removed,/dev/input/event5,card_reader)")
    #expect(s.run("rd:KP3 rd:ENTER") == "entry(door,card_read,0)")
    s.run("9 9 9 9 ENTER")
    #expect(s.sent.map(\.card) == ["3"], "the digits before the unplug were dropped")
    s.run("granted card:77")
    #expect(
      s.send(.deviceRemoved(keypad: "door", path: "/dev/input/event4"))
        == "keypad(door,removed,/dev/input/event4,keypad)")
    #expect(s.session.card("door")?.held != nil)
  }
}
