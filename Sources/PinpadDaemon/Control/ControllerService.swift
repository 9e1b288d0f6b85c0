import PinpadCore
import PinpadSystem

/// `pinpadctl serve` and `pinpadctl hash`: the reference controller (SPEC §4.4).
enum ControllerService {
  static func main(socketPath: String, arguments: [String]) throws -> Int32 {
    throw ControlError("serve is not available in this build")
  }
  static func hashMain(arguments: [String]) throws -> Int32 {
    throw ControlError("hash is not available in this build")
  }
}
