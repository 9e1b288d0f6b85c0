import PinpadCore
import Testing

@testable import PinpadControl
@testable import PinpadDaemon

/// `serve` uses a codes file only when others can neither read nor write it (issue 14).
@Suite("Codes file mode")
struct CodesFileModeTests {
  @Test("owner and group may have any access", arguments: [0o600, 0o640, 0o660, 0o400, 0o100640])
  func ownerAndGroup(mode: UInt32) {
    #expect(CodesFile.modeProblem(mode) == nil)
  }

  @Test("others reading or writing is named, with the mode")
  func others() {
    #expect(CodesFile.modeProblem(0o100644) == "others may read it (mode 0644)")
    #expect(CodesFile.modeProblem(0o602) == "others may write it (mode 0602)")
    #expect(CodesFile.modeProblem(0o666) == "others may read and write it (mode 0666)")
    #expect(CodesFile.modeProblem(0o601) == nil, "execute alone reveals nothing")
  }
}
