/// The Session's codes and verdicts (docs/protocol.md, "Socket: delivery"): the codes
/// held offered to the clients, the shell's word that one was sent, and a verdict.
extension Session {
  /// Every code still held goes to the clients (each once until the shell answers).
  mutating func offerWaitingCodes(_ out: inout [Effect]) {
    attempts.offerWaiting { id, keypad, digits, card in
      out.append(.sendCode(id: id, keypad: keypad, digits: digits, card: card))
    }
  }

  mutating func codeSent(
    id: String, clients: Int, connected: Int, now: Instant, _ out: inout [Effect]
  ) {
    if connected > 0 { log(.debug, "attempt \(id): sent to \(clients) client(s)", &out) }
    let outcome = attempts.offerAnswered(
      id: id, clients: clients, connected: connected,
      verdictDeadline: now.adding(nanoseconds: verdictTimeout))
    if outcome == .firstWithoutClient {
      log(
        .warning,
        "attempt \(id): no controller connected, waiting up to \(Double(deliveryTimeout) / 1e9) s",
        &out)
    }
  }

  mutating func verdict(
    id: String, granted: Bool, message: String?, duress: Bool, reason: String?, client: Int,
    now: Instant, _ out: inout [Effect]
  ) {
    let at = clock.time(at: now)
    switch attempts.decide(id: id) {
    case .accepted(let keypad):
      let result: VerdictResult = granted ? .granted : .denied
      log(
        .info,
        "attempt \(id) on keypad \(keypad): \(result.rawValue)\(reason.map { " (\($0))" } ?? "") by client \(client)",
        &out)
      out.append(.broadcast(.verdict(id: id, result: result, reason: reason)))
      if duress {
        // After the verdict, so a client sees the attempt decided first; the screen and
        // the entry events stay those of an ordinary verdict.
        log(.warning, "attempt \(id) on keypad \(keypad): duress alarm", &out)
        out.append(.broadcast(.alarm(reason: "duress", keypad: keypad, id: id)))
      }
      out.append(.dropUnreadCode(id: id))
      if granted { out.append(.attemptGranted(id: id, keypad: keypad)) }
      feed(.verdict(granted ? .granted : .denied), keypad: keypad, at: at, now: now, &out)
      activeKeypad = keypad
      if granted {
        presenter.showResult(.granted(message: message), now: at)
      } else if case .locked = machine(keypad)?.phase {
        presenter.keyPressed()  // the lockout countdown says it all
      } else {
        presenter.showResult(
          .denied(message: message, attemptsLeft: machine(keypad)?.attemptsLeft), now: at)
      }
      saveLockouts(now: now, &out)
      status("Waiting for keys", &out)
    case .alreadyDecided:
      out.append(.reply(client: client, .error("attempt \(id) was already decided")))
    case .timedOut:
      out.append(
        .reply(
          client: client,
          .error(
            "attempt \(id) timed out: no verdict within \(config.socket.verdictTimeout.secondsText) s"
          )))
    case .unknown, .notDelivered:
      out.append(.reply(client: client, .error("unknown attempt id")))
    }
  }
}
