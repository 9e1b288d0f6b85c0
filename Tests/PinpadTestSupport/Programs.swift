import Foundation
import Glibc

// Only test builds can import Testing; `swift build` (the release build for the
// packages, too) compiles this target without it.
#if canImport(Testing)
  import Testing
#endif

/// A failure the test cannot return: an issue of the running test, or in a build without
/// Swift Testing a line on standard error.
func recordFailure(_ text: String) {
  #if canImport(Testing)
    Issue.record(Comment(rawValue: text))
  #else
    FileHandle.standardError.write(Data((text + "\n").utf8))
  #endif
}

/// Output of a finished program.
public struct Finished: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
  public init(status: Int32, stdout: String, stderr: String) {
    self.status = status
    self.stdout = stdout
    self.stderr = stderr
  }
}

/// Runs a program to completion (killed after `timeout` seconds), with `input` on stdin.
public func runProgram(
  _ path: String, _ arguments: [String], input: String? = nil, timeout: Double = 10,
  environment: [String: String]? = nil
) throws -> Finished {
  _ = E2E.ignorePipes
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let out = Pipe()
  let err = Pipe()
  let inp = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = inp
  try process.run()
  // Read both pipes on their own threads so a chatty program cannot block.
  let outData = Collector(out.fileHandleForReading)
  let errData = Collector(err.fileHandleForReading)
  // A program may exit without reading its input (a refused argument): the write then
  // fails with EPIPE, which is the program's business, not a crash of the test process
  // (FileHandle.write(_:) traps on it).
  if let input { try? inp.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
  try? inp.fileHandleForWriting.close()
  if !E2E.waitUntil(timeout: timeout, { !process.isRunning }) {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    recordFailure("\(path) \(arguments) did not finish within \(timeout) s")
  }
  process.waitUntilExit()
  return Finished(
    status: process.terminationStatus, stdout: outData.wait(), stderr: errData.wait())
}

/// Reads a file handle to its end on a background thread.
public final class Collector: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)
  public init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      let all = handle.readDataToEndOfFile()
      lock.lock()
      data = all
      lock.unlock()
      done.signal()
    }
  }
  /// What was read, once the end came (or after `timeout` seconds, what came so far).
  public func wait(timeout: Double = 5) -> String {
    _ = done.wait(timeout: .now() + timeout)
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: data, as: UTF8.self)
  }
}

/// A background program, killed when dropped.
public final class RunningProcess {
  public let process = Process()
  public let stdout: Collector
  public let stderr: Collector

  public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil)
    throws
  {
    _ = E2E.ignorePipes
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    stdout = Collector(out.fileHandleForReading)
    stderr = Collector(err.fileHandleForReading)
  }

  deinit { kill() }

  public var pid: Int32 { process.processIdentifier }

  /// Sends `signal`; SIGKILL follows when the process is still there after 5 s.
  public func kill(_ signal: Int32 = SIGKILL) {
    guard process.isRunning else { return }
    _ = Glibc.kill(process.processIdentifier, signal)
    if !E2E.waitUntil(timeout: 5, { !process.isRunning }) {
      recordFailure("\(process.executableURL?.path ?? "?") ignored signal \(signal)")
      _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
  }
}
