import Glibc
import PinpadCore
import PinpadInput
import PinpadSystem
import Testing

/// A temporary folder standing in for /dev/input.
private final class FakeInputDirectory {
  let path: String

  init(files: [String]) {
    var template = Array("/tmp/pinpadd-input-XXXXXX".utf8CString)
    path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    for name in files {
      var file = OwnedDescriptor(
        taking: open(path + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
      let fd = file.fd.rawValue
      file.close()
    }
  }

  deinit {
    if let dir = opendir(path) {
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { unlink(path + "/" + name) }
      }
      closedir(dir)
    }
    rmdir(path)
  }
}

@Suite struct InputNodesTests {
  @Test func onlyEventNodesAreListedInNumericOrder() {
    let dir = FakeInputDirectory(files: ["event10", "event2", "mouse0", "js0", "eventX", "event0"])
    #expect(
      inputEventNodes(in: dir.path) == [
        dir.path + "/event0", dir.path + "/event2", dir.path + "/event10",
      ])
  }

  @Test func aMissingDirectoryHasNoNodes() {
    #expect(inputEventNodes(in: "/nonexistent/input") == [])
  }

  @Test func aNodeThatIsNotAnEvdevDeviceIsUndescribed() {
    let dir = FakeInputDirectory(files: ["event0"])
    #expect(describeInputNode(dir.path + "/event0", udevDevices: []) == nil)
  }

  @Test func udevKnowledgeIsUsedWithoutOpeningTheNode() {
    let known = DeviceIdentity(devnode: "/nonexistent/event4", name: "Keypad")
    let caps = DeviceCapabilities(hasDigitKeys: true)
    let described = describeInputNode("/nonexistent/event4", udevDevices: [(known, caps)])
    #expect(described?.0 == known)
    #expect(described?.1 == caps)
  }

  @Test func openingAMissingNodeThrowsWithItsPath() {
    #expect(throws: SystemError("open", path: "/nonexistent/event1", Errno(ENOENT))) {
      try EvdevDevice(path: "/nonexistent/event1")
    }
  }
}
