import PinpadCore

/// The bridge's lines for the daemon (verdicts, status requests) waiting for room in
/// its socket (docs/protocol.md, "MQTT: verdicts"): whole lines, at most `capacity`
/// bytes. The shell writes `pending` as far as the kernel takes it and reports `sent`; a
/// line that finds the queue full is dropped, counted, and said in a warning: the first
/// at once, then one line with the count at most every `reportInterval` while drops go
/// on. Pure: the shell owns the socket and the clock. Verdict lines carry no digit of a
/// code.
public struct DaemonOutbox {
  public let capacity: Int
  public static let defaultCapacity = 1024 * 1024
  public static let reportInterval: Duration = .seconds(5)
  private var bytes: [UInt8] = []
  private var start = 0
  /// Lines dropped because the queue was full, since the bridge started.
  public private(set) var dropped = 0
  private var droppedUnsaid = 0
  private var lastReport: Instant? = nil

  public init(capacity: Int = DaemonOutbox.defaultCapacity) { self.capacity = capacity }

  public var isEmpty: Bool { start == bytes.count }
  public var queuedBytes: Int { bytes.count - start }

  /// Queues `line` and its newline; a warning to log when it had to be dropped (nil
  /// when queued, or dropped while the last warning is recent: it is counted then).
  public mutating func enqueue(_ line: String, now: Instant) -> String? {
    let size = line.utf8.count + 1
    guard queuedBytes + size <= capacity else {
      dropped += 1
      droppedUnsaid += 1
      return report(now: now)
    }
    compact()
    bytes += line.utf8
    bytes.append(0x0A)
    return nil
  }

  /// The warning for drops not yet said, once `reportInterval` has passed since the
  /// last one (for the shell's timer: a flood that ends is still summed up).
  public mutating func report(now: Instant) -> String? {
    guard droppedUnsaid > 0 else { return nil }
    if let last = lastReport, now - last < DaemonOutbox.reportInterval { return nil }
    lastReport = now
    let count = droppedUnsaid
    droppedUnsaid = 0
    return "the daemon's socket is full and \(capacity / 1024) KiB of lines wait: "
      + "\(count == 1 ? "a line" : "\(count) lines") for the daemon dropped "
      + "(\(dropped) since the start)"
  }

  /// When `report` may have something to say, nil when nothing waits.
  public var nextReportAt: Instant? {
    guard droppedUnsaid > 0, let last = lastReport else { return nil }
    return last + DaemonOutbox.reportInterval
  }

  /// Hands the bytes waiting to `write`, which returns how many the kernel took.
  public mutating func flush(_ write: (UnsafeRawBufferPointer) -> Int) {
    guard !isEmpty else { return }
    let taken = bytes.withUnsafeBytes { raw in
      write(UnsafeRawBufferPointer(rebasing: raw[start...]))
    }
    start += max(0, min(taken, queuedBytes))
    if isEmpty { clear() }
  }

  /// Drops everything queued (the daemon connection is gone).
  public mutating func clear() {
    bytes.removeAll(keepingCapacity: true)
    start = 0
  }

  private mutating func compact() {
    guard start > 0, start >= bytes.count / 2 else { return }
    bytes.removeFirst(start)
    start = 0
  }
}
