import Foundation
import Glibc
import PinpadProgram
import PinpadSystem
import PinpadTestSupport
import Testing

/// A real Mosquitto broker on loopback, started by the test: a plain listener, and a
/// TLS one with a test CA made by openssl, optionally with a password file.
final class Broker {
  let dir: TempDir
  private(set) var port = 0
  private(set) var tlsPort = 0
  /// A TLS listener that requires a client certificate signed by the test CA.
  private(set) var certPort = 0
  let users: [String: String]
  private var process: Process?
  var logPath: String { dir.file("mosquitto.log") }

  static var available: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
  }

  /// `users`: name -> password; when given, both listeners refuse anonymous clients.
  init(
    tls: Bool = false, users: [String: String] = [:], aclFile: String? = nil,
    dir: TempDir = TempDir(), extraConfig: String = ""
  ) throws {
    self.dir = dir
    self.users = users
    if tls { try TestCA.make(in: dir) }
    // A free port may be taken by another program (another suite's broker) before
    // mosquitto binds it: then it exits, and the broker starts again on other ports.
    for attempt in 1...3 {
      do {
        try configure(tls: tls, aclFile: aclFile, extraConfig: extraConfig)
        try start()
        return
      } catch  where attempt < 3 && !(process?.isRunning ?? false) {
        continue
      }
    }
  }

  /// Picks the ports and writes mosquitto.conf.
  private func configure(tls: Bool, aclFile: String?, extraConfig: String) throws {
    port = Broker.freePort()
    tlsPort = tls ? Broker.freePort() : 0
    certPort = tls ? Broker.freePort() : 0
    // Nagle off on the broker side too, as on the bridge (MOSQ_OPT_TCP_NODELAY).
    var config =
      "per_listener_settings true\nuser root\npersistence false\nset_tcp_nodelay true\n"
      + extraConfig
    var auth = "allow_anonymous true\n"
    if !users.isEmpty {
      let file = dir.write("passwords", "")
      for (user, password) in users {
        let done = try runProgram("/usr/bin/mosquitto_passwd", ["-b", file, user, password])
        guard done.status == 0 else { throw ClientError("mosquitto_passwd: \(done.stderr)") }
      }
      auth = "allow_anonymous false\npassword_file \(file)\n"
      if let aclFile { auth += "acl_file \(aclFile)\n" }
    }
    config += "listener \(port) 127.0.0.1\n" + auth
    if tls {
      config +=
        "listener \(tlsPort) 127.0.0.1\ncafile \(dir.file("ca.crt"))\n"
        + "certfile \(dir.file("server.crt"))\nkeyfile \(dir.file("server.key"))\n" + auth
      config +=
        "listener \(certPort) 127.0.0.1\ncafile \(dir.file("ca.crt"))\n"
        + "certfile \(dir.file("server.crt"))\nkeyfile \(dir.file("server.key"))\n"
        + "require_certificate true\n" + auth
    }
    dir.write("mosquitto.conf", config)
  }

  deinit { kill() }

  /// The broker's process id while it runs.
  var pid: Int32? { process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }

  /// One broker for a whole suite (brokers take a while to start): started on first
  /// use and SIGKILLed when the test process exits. Suites that share it give each
  /// test its own topics.
  static var shared: Broker {
    get throws {
      if let made = SharedBroker.broker { return made }
      // A flood test counts what the bridge loses: the broker's own queue for a slow
      // subscriber (1000 messages by default, then it drops) must not be the limit.
      let made = try Broker(extraConfig: "max_queued_messages 1000000\n")
      SharedBroker.broker = made
      SharedBroker.pid = made.pid ?? 0
      SharedBroker.path = made.dir.path
      atexit {
        if SharedBroker.pid > 0 { Glibc.kill(SharedBroker.pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: SharedBroker.path)
      }
      return made
    }
  }

  func start() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
    p.arguments = ["-c", dir.file("mosquitto.conf")]
    let log = FileHandle(forWritingAtPath: dir.write("mosquitto.log", ""))
    p.standardOutput = log
    p.standardError = log
    p.standardInput = FileHandle.nullDevice
    try p.run()
    process = p
    // Every listener, not only the first: mosquitto opens them one after the other, and
    // on a loaded machine a test reached the TLS one before it listened (a refused
    // connection, then the bridge's retry line beside the one it expected).
    let ports = [port, tlsPort, certPort].filter { $0 != 0 }
    // Ours, running: a port taken by another program accepts too, while mosquitto has
    // said "Error: Address already in use" and exited.
    guard
      E2E.waitUntil(
        timeout: 10,
        {
          !p.isRunning
            || (dir.read("mosquitto.log").contains(" running")
              && ports.allSatisfy(Broker.accepts))
        }), p.isRunning
    else {
      throw ClientError("mosquitto did not start: \(dir.read("mosquitto.log"))")
    }
  }

  /// SIGKILL: the broker is gone at once, as on a crash or a cut cable.
  func kill() {
    guard let p = process, p.isRunning else { return }
    Glibc.kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    process = nil
  }

  static func freePort() -> Int {
    let owner = OwnedDescriptor(taking: socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
    let fd = owner.fd.rawValue
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  static func accepts(_ port: Int) -> Bool {
    let owner = OwnedDescriptor(taking: socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
    let fd = owner.fd.rawValue
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// Arguments for mosquitto_sub/mosquitto_pub reaching the plain listener (as `user`,
  /// or the first user there is).
  var clientArguments: [String] { arguments(as: nil) }

  func arguments(as user: String?) -> [String] {
    var args = ["-h", "127.0.0.1", "-p", String(port)]
    if let user, let password = users[user] {
      args += ["-u", user, "-P", password]
    } else if let (user, password) = users.first {
      args += ["-u", user, "-P", password]
    }
    return args
  }

  /// Publishes one message with mosquitto_pub.
  func publish(_ topic: String, _ payload: String, retain: Bool = false, as user: String? = nil)
    throws
  {
    let done = try runProgram(
      "/usr/bin/mosquitto_pub",
      arguments(as: user) + ["-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
    guard done.status == 0 else { throw ClientError("mosquitto_pub: \(done.stderr)") }
  }

  /// The retained messages under `filter`, as a fresh subscriber sees them within a
  /// second. (Not `mosquitto_sub -W`: its SIGALRM is blocked in the test runner.)
  func retained(_ filter: String, as user: String? = nil) throws -> [MQTTMessage] {
    let sub = try Subscriber(self, filter, dir: dir, settle: 1.0, as: user)
    return sub.messages.filter(\.retained)
  }
}

private enum SharedBroker {
  nonisolated(unsafe) static var broker: Broker? = nil
  nonisolated(unsafe) static var pid: Int32 = 0
  nonisolated(unsafe) static var path = ""
}

/// One message as `mosquitto_sub -F '%r\t%t\t%p'` prints it.
struct MQTTMessage: Equatable {
  var retained: Bool
  var topic: String
  var payload: String

  static func parse(_ text: String) -> [MQTTMessage] {
    text.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { return nil }
      return MQTTMessage(
        retained: parts[0] == "1", topic: String(parts[1]), payload: String(parts[2]))
    }
  }

  var json: [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
  }
}

/// A `mosquitto_sub` running for the whole test, its output read as it arrives.
final class Subscriber {
  let process = Process()
  let output: String

  init(
    _ broker: Broker, _ filter: String = "#", dir: TempDir, settle: Double = 0.3,
    as user: String? = nil
  ) throws {
    output = dir.file("sub-\(UInt32.random(in: 0...UInt32.max)).txt")
    let handle = FileHandle(
      forWritingAtPath: dir.write(URL(fileURLWithPath: output).lastPathComponent, ""))
    process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
    process.arguments = broker.arguments(as: user) + ["-q", "1", "-t", filter, "-F", "%r\t%t\t%p"]
    process.standardOutput = handle
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Subscribed once the broker has a client for it: give it a moment.
    E2E.sleep(settle)
  }
  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  var messages: [MQTTMessage] {
    MQTTMessage.parse((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
  }

  /// The first message on `topic` matching `condition` (after message number `after`).
  func waitFor(
    _ topic: String, after: Int = -1, timeout: Double = 10,
    where condition: (MQTTMessage) -> Bool = { _ in true }
  ) -> MQTTMessage? {
    waitForIndex(topic, after: after, timeout: timeout, where: condition).map { messages[$0] }
  }

  /// The number of that message in `messages`.
  func waitForIndex(
    _ topic: String, after: Int = -1, timeout: Double = 10,
    where condition: (MQTTMessage) -> Bool = { _ in true }
  ) -> Int? {
    var found: Int? = nil
    _ = E2E.waitUntil(timeout: timeout) {
      let all = messages
      found = all.indices.first { $0 > after && all[$0].topic == topic && condition(all[$0]) }
      return found != nil
    }
    return found
  }
}

/// A test CA and a server certificate for localhost / 127.0.0.1 signed by it, plus a
/// second CA that signed nothing the broker uses ("the wrong CA").
enum TestCA {
  static func make(in dir: TempDir) throws {
    func openssl(_ args: [String]) throws {
      let done = try runProgram("/usr/bin/openssl", args, timeout: 30)
      guard done.status == 0 else { throw ClientError("openssl \(args): \(done.stderr)") }
    }
    let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ["ca", "other-ca"] {
      try openssl(
        ["req", "-x509"] + key + [
          "-keyout", dir.file("\(ca).key"), "-out", dir.file("\(ca).crt"), "-days", "2",
          "-subj", "/CN=pinpadd test \(ca)",
        ])
    }
    try openssl(
      ["req"] + key + [
        "-keyout", dir.file("server.key"), "-out", dir.file("server.csr"), "-subj", "/CN=localhost",
      ])
    dir.write("san.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    try openssl([
      "x509", "-req", "-in", dir.file("server.csr"), "-CA", dir.file("ca.crt"), "-CAkey",
      dir.file("ca.key"), "-CAcreateserial", "-out", dir.file("server.crt"), "-days", "2",
      "-extfile", dir.file("san.ext"),
    ])
    // A client certificate for door1, signed by the same CA.
    try openssl(
      ["req"] + key + [
        "-keyout", dir.file("client.key"), "-out", dir.file("client.csr"), "-subj", "/CN=door1",
      ])
    try openssl([
      "x509", "-req", "-in", dir.file("client.csr"), "-CA", dir.file("ca.crt"), "-CAkey",
      dir.file("ca.key"), "-CAcreateserial", "-out", dir.file("client.crt"), "-days", "2",
    ])
  }
}

/// A program in the background with its output in files (read while it runs).
final class Background {
  let process = Process()
  let logPath: String

  /// `environment`: variables set on top of the test's own.
  init(
    _ path: String, _ arguments: [String], dir: TempDir, name: String,
    environment: [String: String] = [:]
  ) throws {
    _ = E2E.ignorePipes
    logPath = dir.write("\(name)-\(UInt32.random(in: 0...UInt32.max)).log", "")
    let handle = FileHandle(forWritingAtPath: logPath)
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    try process.run()
  }
  deinit { kill(SIGKILL) }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
  var isRunning: Bool { process.isRunning }

  func kill(_ signal: Int32) {
    guard process.isRunning else { return }
    Glibc.kill(process.processIdentifier, signal)
    if !E2E.waitUntil(timeout: 5, { !process.isRunning }) {
      Glibc.kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
  }

  /// The exit status once it ends within `timeout` (nil if it is still running).
  func exitStatus(within timeout: Double) -> Int32? {
    guard E2E.waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// pinpadd reading keys from a pseudo-terminal the test types on, no display.
final class TypedDaemon {
  let dir: TempDir
  let terminal: PseudoTerminal
  let process = Process()
  let socket: String
  let configPath: String
  let logPath: String

  init(config: String, dir: TempDir = TempDir(), name: String = "pinpadd") throws {
    self.dir = dir
    terminal = try PseudoTerminal()
    socket = dir.file("\(name).sock")
    configPath = dir.write("\(name).conf", config)
    logPath = dir.write("\(name).log", "")
    process.executableURL = URL(fileURLWithPath: E2E.pinpadd)
    process.arguments = [
      "--config", configPath, "--input", "terminal", "--display", "none", "--socket", socket,
      "--state-dir", dir.file("\(name)-state"), "--log-level", "debug",
    ]
    process.standardInput = terminal.follower
    process.standardOutput = terminal.follower
    process.standardError = FileHandle(forWritingAtPath: logPath)
    try process.run()
    terminal.closeFollower()
    // 30 s, as RunningDaemon's: a bound on a start that takes well under a second.
    guard E2E.waitUntil(timeout: 30, { self.log.contains(" ready") }) else {
      throw DaemonFailed(log: log, status: nil)
    }
  }
  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
  func type(_ text: String) { terminal.type(text) }
  func connect() throws -> TestClient { try TestClient(path: socket) }

  /// SIGTERM, then its exit status (nil when it is still running after `timeout`).
  func stopped(timeout: Double = 10) -> Int32? {
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, SIGTERM)
    guard E2E.waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// How many clients the daemon has, from its status answer.
  func clients() -> Int? {
    guard let client = try? connect(), let status = try? client.status() else { return nil }
    return status.int("clients").map { $0 - 1 }  // not counting this one
  }
}

/// The `[MQTT]` section for a broker, as lines for a config file.
func mqttSection(broker: String, topic: String, extra: [String] = []) -> String {
  (["[MQTT]", "Broker=\(broker)", "Topic=\(topic)", "ClientID=test-\(topic)"] + extra)
    .joined(separator: "\n") + "\n"
}

/// A stand-in for the daemon's socket: a Unix listener the test drives by hand, for
/// what the real daemon cannot be made to do on cue (a thousand codes at once, a
/// socket that stops reading).
final class StandInDaemon {
  let path: String
  private let listenerOwner: OpenDescriptor
  private var listener: Int32 { listenerOwner.fd }
  private var clientOwner: OpenDescriptor? = nil
  var client: Int32 { clientOwner?.fd ?? -1 }
  private var buffer: [UInt8] = []

  init(dir: TempDir) throws {
    path = dir.file("standin.sock")
    listenerOwner = OpenDescriptor(
      OwnedDescriptor(
        taking: socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)))
    let listener = listenerOwner.fd
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0, listen(listener, 4) == 0 else {
      throw ClientError("stand-in daemon: bind/listen: \(errno)")
    }
  }

  /// Waits for the bridge to connect, makes the receive buffer small (so the bridge
  /// meets a full socket soon) and sends the hello.
  func accept(timeout: Double = 15, receiveBuffer: Int32 = 4096) -> Bool {
    var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, Int32(timeout * 1000)) == 1 else { return false }
    let taken = Glibc.accept(listener, nil, nil)
    guard taken >= 0 else { return false }
    clientOwner = OpenDescriptor(OwnedDescriptor(taking: taken))
    var size = receiveBuffer
    setsockopt(client, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    return send(#"{"type":"hello","protocol":1,"version":"0.0.0"}"#)
  }

  /// Writes one line (blocking).
  @discardableResult
  func send(_ line: String) -> Bool {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes {
        Glibc.send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      if n < 0, errno == EINTR { continue }
      if n <= 0 { return false }
      offset += n
    }
    return true
  }

  /// Reads whatever the bridge sent for up to `timeout` seconds, until `enough` says
  /// so; returns the complete lines read.
  func readLines(timeout: Double, until enough: ([String]) -> Bool = { _ in false }) -> [String] {
    var lines: [String] = []
    let end = E2E.now() + timeout
    var chunk = [UInt8](repeating: 0, count: 65536)
    while E2E.now() < end, !enough(lines) {
      var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 100) == 1 else { continue }
      let n = Glibc.recv(client, &chunk, chunk.count, 0)
      if n <= 0 { break }
      buffer += chunk[0..<n]
      var start = 0
      while let newline = buffer[start...].firstIndex(of: 0x0A) {
        lines.append(String(decoding: buffer[start..<newline], as: UTF8.self))
        start = newline + 1
      }
      buffer.removeFirst(start)
    }
    return lines
  }
}
