import PinpadControlCore
import PinpadCore
import PinpadProgram

/// `pinpadctl verdict ID granted|denied [--message TEXT] [--duress]`: answers attempt ID
/// (pinpadctl(1); docs/protocol.md, "Socket: verdict").
enum VerdictCommand {
  struct Options: Equatable {
    var id: String
    var result: String
    var message: String? = nil
    var duress = false

    /// The words after `verdict`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
      var words = Arguments(arguments)
      guard let id = words.next()?.text, let result = words.next()?.text,
        result == "granted" || result == "denied"
      else { throw UsageError("verdict ID granted|denied [--message TEXT] [--duress]") }
      var options = Options(id: id, result: result)
      while let word = words.next() {
        switch word.name {
        case "--message": options.message = try words.value(of: word)
        case "--duress":
          try words.flag(word)
          options.duress = true
        default: throw UsageError("unexpected \(word.text)")
        }
      }
      return options
    }

    func validate() throws(UsageError) {
      if duress, result != "granted" { throw UsageError("verdict: --duress goes with granted") }
    }

    /// The request to send, written by `ClientRequest.line`.
    var request: ClientRequest {
      .verdict(id: id, granted: result == "granted", message: message, duress: duress)
    }

    /// Done when the daemon takes this attempt's verdict; refused on its error.
    func answer(_ line: DaemonLine?) -> DaemonExchange.Answer {
      switch line {
      case .verdict(let answered, _, _)? where answered == id: return .done(print: false)
      case .error(let reason)?: return .refused(reason)
      default: return .wait
      }
    }
  }

  static func run(_ options: Options, socketPath: String, deadline: Instant) throws -> Int32 {
    try DaemonExchange.run(
      options.request, socketPath: socketPath, deadline: deadline, answer: options.answer)
  }
}
