import Glibc
import PinpadSystem
import Testing

@testable import PinpadControl

/// The one secret reader, as `hash` reads a code piped to it: one line a call, nothing
/// past its newline taken, carriage returns dropped, a line too long cut and marked.
@Suite struct SecretLineReaderTests {
  /// A pipe that holds `text`, its writing end closed.
  final class Piped {
    let readEnd: OwnedDescriptor

    init(_ text: String) throws {
      var fds: [Int32] = [0, 0]
      #expect(pipe(&fds) == 0)
      readEnd = OwnedDescriptor(taking: fds[0])
      var writer = OwnedDescriptor(taking: fds[1])
      try writer.fd.writeAll(Array(text.utf8))
      writer.close()
    }

    /// A reader of it, as `typedInput()` makes for standard input.
    func reader(capacity: Int = SecretLineReader.typedCapacity + 1) -> SecretLineReader {
      SecretLineReader(fd: readEnd.fd, capacity: capacity)
    }
  }

  static func text(_ line: SecretLineReader.TypedLine) -> String {
    String(decoding: line.bytes, as: UTF8.self)
  }

  @Test func eachCallTakesOneLineAndLeavesTheRestInThePipe() throws {
    let pipe = try Piped("12\r\n34\nrest")
    #expect(Self.text(pipe.reader().readTypedLine()) == "12")
    // A second reader (the next secret) finds the next line where the first left it.
    let second = pipe.reader()
    #expect(Self.text(second.readTypedLine()) == "34")
    let last = second.readTypedLine()
    #expect(Self.text(last) == "rest" && !last.tooLong)
    #expect(Self.text(second.readTypedLine()) == "")
  }

  @Test func aLineLongerThanTheBufferIsCutAndMarked() throws {
    let pipe = try Piped("123456789\nnext\n")
    let line = pipe.reader(capacity: 5).readTypedLine()
    #expect(Self.text(line) == "1234" && line.tooLong)
    // It stopped at the first byte too many: the rest of that line is still unread.
    #expect(Self.text(pipe.reader().readTypedLine()) == "6789")
  }

  @Test func fourBytesAndTheNewlineFitFive() throws {
    let pipe = try Piped("1234\r\n")
    let line = pipe.reader(capacity: 5).readTypedLine()
    #expect(Self.text(line) == "1234" && !line.tooLong)
  }
}
