import Glibc
import PinpadCore
import PinpadInput
import PinpadSystem
import PinpadTestSupport
import Testing

/// A temporary folder standing in for /dev/input, with these (empty) files.
private func fakeInputDirectory(files: [String]) -> TempDir {
  let dir = TempDir(prefix: "pinpadd-input")
  for name in files { dir.write(name, "") }
  return dir
}

@Suite struct InputNodesTests {
  @Test func onlyEventNodesAreListedInNumericOrder() {
    let dir = fakeInputDirectory(files: ["event10", "event2", "mouse0", "js0", "eventX", "event0"])
    #expect(
      inputEventNodes(in: dir.path) == [
        dir.path + "/event0", dir.path + "/event2", dir.path + "/event10",
      ])
  }

  @Test func aMissingDirectoryHasNoNodes() {
    #expect(inputEventNodes(in: "/nonexistent/input") == [])
  }

  @Test func aNodeThatIsNotAnEvdevDeviceIsUndescribed() {
    let dir = fakeInputDirectory(files: ["event0"])
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
