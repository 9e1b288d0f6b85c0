import PinpadCore
import Testing

private func digits(_ values: [UInt8]) -> SecretDigits {
  let digits = SecretDigits()
  for value in values { digits.append(value) }
  return digits
}

private func at(_ seconds: Double) -> Instant { .seconds(1000 + seconds) }

/// What a delivery handed over: id, keypad and the code as text at that moment.
private struct Sent: Equatable {
  var id: String
  var keypad: String
  var code: String
}

extension AttemptBook {
  /// Offers every waiting code and answers each offer as taken by one client, as the
  /// Session and the shell do (the code is read, then `offerAnswered`), and records
  /// what each offer saw.
  fileprivate mutating func deliver(verdictDeadline: Instant) -> [Sent] {
    var sent: [Sent] = []
    offerWaiting { id, keypad, digits, _ in
      let code = digits.withASCII { String(decoding: $0, as: UTF8.self) }
      sent.append(Sent(id: id, keypad: keypad, code: code))
    }
    for offer in sent {
      #expect(
        offerAnswered(id: offer.id, clients: 1, connected: 1, verdictDeadline: verdictDeadline)
          == .sent)
    }
    return sent
  }

  /// The ids `offerWaiting` hands out now.
  fileprivate mutating func offeredIDs() -> [String] {
    var ids: [String] = []
    offerWaiting { id, _, _, _ in ids.append(id) }
    return ids
  }
}

@Suite("Attempt book")
struct AttemptBookTests {
  @Test("a code no client took keeps its digits and keeps waiting for a client")
  func untakenCodeKeepsWaiting() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let held = digits([4, 2])
    let id = book.add(keypad: "k", digits: held, deadline: at(5))
    #expect(held.count == 2)
    #expect(book.attempts.first?.delivered == false)
    #expect(book.attempts.first?.deadline == at(5))
    #expect(book.decide(id: id) == .notDelivered)
  }

  // MARK: - Ids

  @Test("ids are 32 lowercase hex digits (128 bits) and unique")
  func uniqueIds() {
    var book = AttemptBook(random: SeededRandom(state: 1))
    let ids = (0..<1000).map { _ in book.add(keypad: "k", digits: digits([1]), deadline: at(5)) }
    #expect(Set(ids).count == 1000)
    #expect(
      ids.allSatisfy { id in
        id.utf8.count == 32
          && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
      })
  }

  @Test("ids come from the injected generator alone: one seed, one sequence; another seed, others")
  func idsFromTheGenerator() {
    var a = AttemptBook(random: SeededRandom(state: 42))
    var b = AttemptBook(random: SeededRandom(state: 42))
    var c = AttemptBook(random: SeededRandom(state: 43))
    let first = (0..<3).map { _ in a.add(keypad: "k", digits: digits([1]), deadline: at(5)) }
    let same = (0..<3).map { _ in b.add(keypad: "k", digits: digits([1]), deadline: at(5)) }
    let other = (0..<3).map { _ in c.add(keypad: "k", digits: digits([1]), deadline: at(5)) }
    #expect(first == same)
    #expect(Set(first).isDisjoint(with: other))
  }

  @Test(
    "no id is derived from the one before it: consecutive ids share no common prefix or counter")
  func idsNotDerived() {
    var book = AttemptBook(random: SeededRandom(state: 9))
    let one = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    let two = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    #expect(!one.contains("-") && !two.contains("-"))
    #expect(one.prefix(8) != two.prefix(8))
  }

  @Test("a generator that repeats itself does not give one id twice while it is in use")
  func repeatedDrawRedrawn() {
    var book = AttemptBook(random: Repeating(values: [1, 2, 1, 2, 3, 4]))
    let one = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    let two = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    #expect(one == "0000000000000001" + "0000000000000002")
    #expect(two == "0000000000000003" + "0000000000000004")
  }

  @Test("an id is never reused after its attempt is decided")
  func idsNotReused() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let first = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    _ = book.decide(id: first)
    let second = book.add(keypad: "k", digits: digits([2]), deadline: at(15))
    #expect(first != second)
  }

  // MARK: - Waiting for a client

  @Test("a new attempt holds its digits and waits for a client until its deadline")
  func newAttemptWaits() throws {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "front", digits: digits([1, 2, 3, 4]), deadline: at(5))
    let attempt = try #require(book.attempts.first)
    #expect(attempt.id == id)
    #expect(attempt.keypad == "front")
    #expect(!attempt.delivered)
    #expect(attempt.digits?.count == 4)
    #expect(book.nextDeadline == at(5))
  }

  @Test("an empty book has no deadline")
  func emptyBook() {
    let book = AttemptBook(random: SeededRandom(state: 5))
    #expect(book.nextDeadline == nil)
    #expect(book.attempts.isEmpty)
  }

  @Test("the next deadline is the earliest of all attempts")
  func earliestDeadline() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    _ = book.add(keypad: "a", digits: digits([1]), deadline: at(8))
    _ = book.add(keypad: "b", digits: digits([2]), deadline: at(3))
    _ = book.add(keypad: "c", digits: digits([3]), deadline: at(6))
    #expect(book.nextDeadline == at(3))
  }

  // MARK: - Delivery

  @Test("delivery hands each waiting code to the sender with its id and keypad")
  func deliverySends() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let a = book.add(keypad: "front", digits: digits([0, 0, 7]), deadline: at(5))
    let b = book.add(keypad: "back", digits: digits([9, 8, 7, 6]), deadline: at(5))
    #expect(
      book.deliver(verdictDeadline: at(10)) == [
        Sent(id: a, keypad: "front", code: "007"), Sent(id: b, keypad: "back", code: "9876"),
      ])
  }

  @Test("delivery wipes the digits it handed over")
  func deliveryWipes() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let code = digits([1, 2, 3, 4])
    _ = book.add(keypad: "k", digits: code, deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    #expect(code.count == 0)
    #expect(book.attempts.allSatisfy { $0.digits == nil })
  }

  @Test("a delivered attempt waits for a verdict until the verdict deadline")
  func deliveredGetsVerdictDeadline() throws {
    var book = AttemptBook(random: SeededRandom(state: 5))
    _ = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(12))
    let attempt = try #require(book.attempts.first)
    #expect(attempt.delivered)
    #expect(attempt.deadline == at(12))
    #expect(book.nextDeadline == at(12))
  }

  @Test("a code is delivered only once")
  func deliveredOnce() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    _ = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    #expect(book.deliver(verdictDeadline: at(10)).count == 1)
    #expect(book.deliver(verdictDeadline: at(20)).isEmpty)
    #expect(book.nextDeadline == at(10), "a second delivery does not move the deadline")
  }

  @Test("a later delivery sends only the codes added since")
  func laterDelivery() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    _ = book.add(keypad: "a", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    let second = book.add(keypad: "b", digits: digits([2]), deadline: at(6))
    #expect(book.deliver(verdictDeadline: at(11)).map(\.id) == [second])
  }

  @Test("delivery with nothing waiting calls no sender")
  func nothingToDeliver() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    #expect(book.deliver(verdictDeadline: at(10)).isEmpty)
  }

  // MARK: - Offers

  @Test("an offered code is not offered again until its offer is answered")
  func offeredOnceUntilAnswered() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "k", digits: digits([1, 2]), deadline: at(5))
    #expect(book.offeredIDs() == [id])
    #expect(book.attempts[0].offered)
    #expect(book.offeredIDs() == [], "offered twice while the first offer is out")
    let later = book.add(keypad: "k", digits: digits([3]), deadline: at(6))
    #expect(book.offeredIDs() == [later], "only the new code")
  }

  @Test("an offer no client took leaves the code held, on its deadline, and offered again")
  func untakenOfferOfferedAgain() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let code = digits([1, 2])
    let id = book.add(keypad: "k", digits: code, deadline: at(5))
    _ = book.offeredIDs()
    _ = book.offerAnswered(id: id, clients: 0, connected: 0, verdictDeadline: at(15))
    #expect(code.count == 2)
    #expect(!book.attempts[0].offered && !book.attempts[0].delivered)
    #expect(book.nextDeadline == at(5))
    #expect(book.offeredIDs() == [id])
  }

  @Test("an offer a client took wipes the code and card, and starts the verdict's wait")
  func takenOffer() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let code = digits([1, 2])
    let card = digits([0, 0, 9])
    let id = book.add(keypad: "k", digits: code, card: card, deadline: at(5))
    _ = book.offeredIDs()
    #expect(book.offerAnswered(id: id, clients: 2, connected: 3, verdictDeadline: at(15)) == .sent)
    #expect(code.count == 0 && card.count == 0)
    #expect(book.attempts[0].delivered && book.attempts[0].card == nil)
    #expect(book.nextDeadline == at(15))
    #expect(book.offeredIDs() == [])
    #expect(
      book.offerAnswered(id: id, clients: 1, connected: 1, verdictDeadline: at(30)) == .nothingNew)
    #expect(book.nextDeadline == at(15), "a second answer does not move the deadline")
  }

  @Test("no client connected is worth a warning once per attempt; a client that went, none")
  func warnedOncePerAttempt() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let a = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    let b = book.add(keypad: "k", digits: digits([2]), deadline: at(5))
    func answer(_ id: String, connected: Int) -> AttemptBook.OfferOutcome {
      _ = book.offeredIDs()
      return book.offerAnswered(id: id, clients: 0, connected: connected, verdictDeadline: at(9))
    }
    #expect(answer(a, connected: 1) == .nothingNew, "a client was there and went")
    #expect(!book.attempts[0].warnedNoClient)
    #expect(answer(a, connected: 0) == .firstWithoutClient)
    #expect(book.attempts[0].warnedNoClient)
    #expect(answer(a, connected: 0) == .nothingNew)
    #expect(answer(b, connected: 0) == .firstWithoutClient, "each attempt is warned of")
  }

  @Test("an answer for an attempt that is gone changes nothing")
  func answerForAGoneAttempt() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.offeredIDs()
    _ = book.expire(now: at(5))
    for clients in [0, 1] {
      #expect(
        book.offerAnswered(id: id, clients: clients, connected: clients, verdictDeadline: at(9))
          == .nothingNew)
    }
    #expect(book.attempts.isEmpty)
    #expect(book.decide(id: id) == .timedOut)
  }

  // MARK: - Verdicts

  @Test("the first verdict for a delivered code is accepted with its keypad")
  func firstVerdictAccepted() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "front", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    #expect(book.decide(id: id) == .accepted(keypad: "front"))
    #expect(book.attempts.isEmpty)
    #expect(book.nextDeadline == nil)
  }

  @Test("a second verdict for the same code is already decided")
  func secondVerdictRefused() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "front", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    _ = book.decide(id: id)
    #expect(book.decide(id: id) == .alreadyDecided)
    #expect(book.decide(id: id) == .alreadyDecided)
  }

  @Test("a verdict for an id never given out is unknown")
  func unknownId() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    #expect(book.decide(id: "00000000000000000000000000000999") == .unknown)
    #expect(book.decide(id: "") == .unknown)
    #expect(book.decide(id: id + "0") == .unknown)
    #expect(book.attempts.count == 1, "a stray verdict decides nothing")
  }

  @Test("a verdict for a code no client has had is refused and leaves it waiting")
  func notDelivered() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let code = digits([1, 2])
    let id = book.add(keypad: "k", digits: code, deadline: at(5))
    #expect(book.decide(id: id) == .notDelivered)
    #expect(book.attempts.count == 1)
    #expect(code.count == 2)
  }

  @Test("verdicts for two codes are matched by id, in any order")
  func verdictsById() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let a = book.add(keypad: "a", digits: digits([1]), deadline: at(5))
    let b = book.add(keypad: "b", digits: digits([2]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    #expect(book.decide(id: b) == .accepted(keypad: "b"))
    #expect(book.attempts.map(\.id) == [a])
    #expect(book.decide(id: a) == .accepted(keypad: "a"))
  }

  @Test("a long-settled id is eventually forgotten and becomes unknown")
  func settledMemoryBounded() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    var ids: [String] = []
    for _ in 0..<300 {
      ids.append(book.add(keypad: "k", digits: digits([1]), deadline: at(5)))
      _ = book.deliver(verdictDeadline: at(10))
      _ = book.decide(id: ids.last!)
    }
    // The last 256 are remembered, whichever place of the ring each went to.
    let kept = AttemptBook.settledKept
    #expect(book.decide(id: ids[0]) == .unknown)
    #expect(book.decide(id: ids[300 - kept - 1]) == .unknown)
    for id in ids[(300 - kept)...] { #expect(book.decide(id: id) == .alreadyDecided) }
  }

  @Test("a generator that repeats an id settled lately is drawn again")
  func repeatedSettledDrawRedrawn() {
    var book = AttemptBook(random: Repeating(values: [7, 8, 7, 8, 9, 10]))
    let one = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    #expect(book.decide(id: one) == .accepted(keypad: "k"))
    let two = book.add(keypad: "k", digits: digits([2]), deadline: at(15))
    #expect(two == "0000000000000009" + "000000000000000a")
    #expect(book.decide(id: one) == .alreadyDecided)
  }

  // MARK: - Expiry

  @Test("nothing expires before its deadline")
  func notYetExpired() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let code = digits([1])
    _ = book.add(keypad: "k", digits: code, deadline: at(5))
    #expect(book.expire(now: at(5) - .nanoseconds(1)).isEmpty)
    #expect(book.attempts.count == 1)
    #expect(code.count == 1)
  }

  @Test("a code no client took expires at its deadline, undelivered and wiped")
  func expiresUndelivered() throws {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let code = digits([4, 3, 2, 1])
    let id = book.add(keypad: "front", digits: code, deadline: at(5))
    let expired = book.expire(now: at(5))
    try #require(expired.count == 1)
    #expect(expired[0].id == id)
    #expect(expired[0].keypad == "front")
    #expect(expired[0].delivered == false)
    #expect(code.count == 0)
    #expect(book.attempts.isEmpty)
  }

  @Test("a delivered code without a verdict expires at the verdict deadline, delivered")
  func expiresDelivered() throws {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "front", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(15))
    #expect(book.expire(now: at(14)).isEmpty)
    let expired = book.expire(now: at(15))
    try #require(expired.count == 1)
    #expect(expired[0].id == id)
    #expect(expired[0].delivered == true)
  }

  @Test("only the attempts that are due expire")
  func expiresOnlyDue() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let early = book.add(keypad: "a", digits: digits([1]), deadline: at(3))
    let lateCode = digits([2])
    let late = book.add(keypad: "b", digits: lateCode, deadline: at(8))
    #expect(book.expire(now: at(4)).map(\.id) == [early])
    #expect(book.attempts.map(\.id) == [late])
    #expect(lateCode.count == 1)
    #expect(book.nextDeadline == at(8))
  }

  @Test("a verdict after expiry is timed out, not accepted or already decided")
  func verdictAfterExpiry() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let id = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.deliver(verdictDeadline: at(10))
    _ = book.expire(now: at(10))
    #expect(book.decide(id: id) == .timedOut)
    #expect(book.decide(id: id) == .timedOut)
  }

  @Test("an expired code is not delivered later")
  func expiredNotDelivered() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    _ = book.add(keypad: "k", digits: digits([1]), deadline: at(5))
    _ = book.expire(now: at(6))
    #expect(book.deliver(verdictDeadline: at(20)).isEmpty)
  }

  // MARK: - Shutdown

  @Test("wiping all zeroes every held code and empties the book")
  func wipeAll() {
    var book = AttemptBook(random: SeededRandom(state: 5))
    let a = digits([1, 2, 3])
    let b = digits([4, 5, 6])
    _ = book.add(keypad: "a", digits: a, deadline: at(5))
    _ = book.add(keypad: "b", digits: b, deadline: at(5))
    book.wipeAll()
    #expect(a.count == 0)
    #expect(b.count == 0)
    #expect(book.attempts.isEmpty)
    #expect(book.nextDeadline == nil)
  }
}

/// A generator that gives `values` in order, then zeros: ids drawn from it repeat.
private struct Repeating: RandomNumberGenerator {
  var values: [UInt64]
  mutating func next() -> UInt64 { values.isEmpty ? 0 : values.removeFirst() }
}
