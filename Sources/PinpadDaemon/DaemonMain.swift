import PinpadCore
import PinpadProgram
import PinpadSystem

/// `pinpadd`'s main: OS setup first (signals blocked before any thread exists), then
/// the command line, the configuration, and the daemon. Returns the exit code.
public enum DaemonMain {
  public static func run(arguments: [String]) -> Int32 {
    let signals: SignalReader
    do {
      signals = try SignalReader(
        blocking: [
          SignalNumbers.hangup, SignalNumbers.interrupt, SignalNumbers.terminate,
        ] + FramebufferDisplay.vtSignals)
    } catch {
      printError("pinpadd: cannot set up signals: \(error)")
      return ExitCode.failure.rawValue
    }
    SignalReader.ignoreBrokenPipes()
    ProcessSetup.forbidDumps()
    ProcessSetup.returnLargeBuffersWhenFreed()

    let options: Options
    do { options = try Options(parsing: arguments) } catch {
      printError("pinpadd: \(error)")
      return ExitCode.usage.rawValue
    }
    switch options.mode {
    case .help:
      print(Options.usage)
      return 0
    case .version:
      print("pinpadd \(pinpaddVersion)")
      return 0
    case .checkConfig, .run, .listDevices:
      break
    }
    let config: Configuration
    do {
      config = try ConfigLoader.load(path: options.configPath, required: options.configPathGiven)
    } catch {
      printError(error.description)
      return ExitCode.config.rawValue
    }
    switch options.mode {
    case .checkConfig:
      // [MQTT] is the bridge's (pinpadd.conf(5), [MQTT]): checked here, ignored by the
      // running daemon.
      if config.mqtt.isPresent {
        do { _ = try config.mqtt.validated(hostName: HostName.current) } catch {
          printError(error.description)
          return ExitCode.config.rawValue
        }
      }
      print(config.render(), terminator: "")
      return 0
    case .listDevices:
      return listDevices(config: config)
    default:
      break
    }

    let log = Logger(level: options.logLevel)
    if options.logLevel == .debug {
      log.debug("debug logging: key events are logged by name, digits never")
    }
    let memoryLocked = ProcessSetup.lockMemoryIfAllowed()
    if !memoryLocked {
      // A limited RLIMIT_MEMLOCK: lock just the buffers that hold digits.
      SecretDigits.lockPages = { ProcessSetup.lockPages($0, $1) }
    }
    // systemd's default soft limit is 1024: take the hard limit, so clients run out first.
    ProcessSetup.raiseDescriptorLimit()
    let daemon: Daemon
    do {
      daemon = try Daemon(options: options, config: config, signals: signals, log: log)
    } catch {
      log.error(error.description)
      return error.exitCode
    }
    if memoryLocked {
      // Set up (the program, its libraries and the fonts are mapped): what holds no
      // digit is unlocked, and again after each reload.
      unlockReadOnlyFileMappings(log: log)
      daemon.afterReload = { unlockReadOnlyFileMappings(log: log) }
    }
    return daemon.run()
  }

  /// `ProcessSetup.unlockReadOnlyFileMappings`, its outcome logged (a refused munlock
  /// leaves those pages locked, as they were).
  static func unlockReadOnlyFileMappings(log: Logger) {
    let done = ProcessSetup.unlockReadOnlyFileMappings()
    if let failure = done.failure {
      log.warning("read-only file mappings stay locked: \(failure)")
    }
    log.debug("unlocked \(done.mappings) read-only file mappings (\(done.bytes / 1024) KiB)")
  }

  static func listDevices(config: Configuration) -> Int32 {
    DeviceListCommand.run(configuration: config)
  }

  static func printError(_ line: String) {
    try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
  }
}
