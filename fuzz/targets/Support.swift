// Shared by every fuzz target (compiled into each one).

/// Stops the run with `message` when `condition` fails: libFuzzer saves the input as a
/// crash, like any trap in the code under test.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("inconsistent: \(message())") }
}

/// The input as the daemon would read a text file: UTF-8, bad bytes replaced.
func text(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
  String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
  Array(UnsafeBufferPointer(start: data, count: size))
}

/// Whether `text` holds no line break (LF or CR, alone or as CRLF).
func isOneLine(_ text: String) -> Bool {
  !text.utf8.contains(0x0A) && !text.utf8.contains(0x0D)
}
