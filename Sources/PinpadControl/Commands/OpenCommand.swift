import PinpadControlCore
import PinpadCore
import PinpadProgram

/// `pinpadctl open DOOR`: unlocks the `[Door DOOR]` for its OpenSec (pinpadctl(1);
/// docs/protocol.md, "Socket: open").
enum OpenCommand {
  struct Options: Equatable {
    var door: String

    /// The words after `open`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
      guard arguments.count == 1, let door = arguments.first else {
        throw UsageError("open DOOR")
      }
      return Options(door: door)
    }

    func validate() throws(UsageError) {
      guard DoorConfig.isValidName(door) else {
        throw UsageError("open: \(door) is not a door name")
      }
    }

    /// The request to send, written by `ClientRequest.line`.
    var request: ClientRequest { .open(door: door) }

    /// The daemon says so when the door unlocked for this request; refused on its error.
    func answer(_ line: DaemonLine?) -> DaemonExchange.Answer {
      switch line {
      case .door(let unlocked, "unlocked", "remote")? where unlocked == door:
        return .done(print: false)
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
