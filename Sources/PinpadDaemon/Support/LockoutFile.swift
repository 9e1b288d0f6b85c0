import PinpadCore
import PinpadProgram
import PinpadSystem

/// Reading and writing `STATE_DIR/lockout` (the format is `LockoutStore`'s).
enum LockoutFile {
  /// Reads the lockout state. A state directory that cannot be written fails the start
  /// (69): lockouts would silently stop surviving restarts. `--state-dir none` keeps
  /// them in memory only, on purpose. `now` is the daemon's monotonic clock.
  static func load(directory: String, config: Configuration, log: Logger, now: Instant)
    throws(StartError) -> SavedLockouts
  {
    if directory == "none" {
      log.info("--state-dir none: lockouts are kept in memory only and end with the process")
      return SavedLockouts()
    }
    do {
      try FileSystem.makeDirectories(directory, mode: 0o700)
      try FileSystem.checkWritable(directory)
    } catch {
      throw .unavailable(
        "state directory: \(error); lockouts could not survive a restart "
          + "(--state-dir none runs without saving them)")
    }
    let lockout = LockoutStore(directory: directory)
    guard FileSystem.exists(lockout.path) else { return SavedLockouts() }
    let text: String
    do { text = String(decoding: try FileSystem.read(lockout.path), as: UTF8.self) } catch {
      log.error("\(error); every keypad starts locked for \(config.lockout.lockout.seconds) s")
      return SavedLockouts(
        states: ["*": LockoutState(level: 1, lockedUntil: now + config.lockout.lockout)],
        fileDiffers: true)
    }
    let parsed = LockoutStore.parse(
      text, nowMono: now, nowWallMs: Clock.wallNanoseconds() / 1_000_000,
      conservative: config.lockout.lockout)
    for problem in parsed.problems {
      log.error(
        "\(lockout.path): \(problem); treated as locked for \(config.lockout.lockout.seconds) s")
    }
    return SavedLockouts(
      states: parsed.states, guessed: parsed.guessed, fileDiffers: !parsed.problems.isEmpty)
  }

  /// Writes `states` as the file (`at` is the time their instants are on); nil when
  /// that worked, else why not. `reserve` runs the write (the socket's spare descriptor).
  static func save(
    _ states: [String: LockoutState], at: Instant, to store: LockoutStore,
    reserve: SocketServer?
  ) -> String? {
    let text = LockoutStore.render(
      states, nowMono: at, nowWallMs: Clock.wallNanoseconds() / 1_000_000)
    let write = { () throws(SystemError) in
      try FileSystem.writeAtomically(store.path, Array(text.utf8))
    }
    do {
      if let reserve { try reserve.withReserve(write) } else { try write() }
      return nil
    } catch {
      return "\(error)"
    }
  }
}
