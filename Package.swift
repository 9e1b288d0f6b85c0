// swift-tools-version:6.0
// pinpadd — a PIN-entry daemon for Linux keypads.
// SPDX-License-Identifier: Apache-2.0 (LICENSE)
//
// Layers, bottom up:
//   C*            system libraries (pkg-config: libevdev, libudev, libcrypt, zlib, libmosquitto,
//                 sqlite3, libdrm, libcrypto, freetype2) and one C shim for what Swift cannot import
//   PinpadCore    the entry rules, configuration, protocol: pure Swift, no Glibc, no Foundation
//   PinpadControlCore  pinpadctl's pure parts: the decision core, codes files, lockouts,
//                 the MQTT bridge's rules; pure like PinpadCore (and fuzzed with it)
//   PinpadScreen  the renderers: layout and raster for the framebuffer and snapshots, and
//                 the console's text frames; pure Swift + zlib
//   PinpadSystem  thin typed wrappers over Linux syscalls, the event loop, framebuffer, GPIO
//   PinpadDRM     DRM/KMS cards through libdrm: connectors, dumb buffers, page flips
//   PinpadFreeType  TrueType/OpenType fonts through FreeType, drawn by PinpadScreen
//   PinpadInput   the keypad stack: evdev devices (libevdev) and udev (libudev)
//   PinpadProgram what both programs share: arguments, exit codes, logger, config loading
//   PinpadDaemon  the daemon: inputs, socket server, displays
//   PinpadControl pinpadctl's commands: controller, codes files, access log, MQTT bridge
//                 (libmosquitto, libcrypt, SQLite, libcrypto); it never links the keypad stack
//                 (tests/package.sh checks)
//   pinpadd, pinpadctl  the two programs
import PackageDescription

// The modules off the key-press path (the keypad or terminal, the Session, the socket,
// the screen's raster) are optimized for size in release builds: PinpadDRM (connectors
// probed and listed, buffers made; a page flip is one libdrm call), PinpadFreeType (a
// glyph is rendered once, then kept) and PinpadProgram (arguments, configuration
// loading, the logger: a few lines a code at most, each a write). Release only: in a
// debug build -Osize would replace -Onone. bench/README.md, issue 55.
let offKeyPath: [SwiftSetting] = [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let package = Package(
  name: "pinpadd",
  products: [
    .executable(name: "pinpadd", targets: ["pinpadd"]),
    .executable(name: "pinpadctl", targets: ["pinpadctl"]),
  ],
  targets: [
    .systemLibrary(
      name: "CLibevdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
    .systemLibrary(name: "CLibudev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
    .systemLibrary(
      name: "CLibcrypt", pkgConfig: "libcrypt", providers: [.apt(["libcrypt-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(
      name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    .systemLibrary(name: "CLibdrm", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CLibcrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
    .target(name: "CPinpadShim"),

    .target(name: "PinpadCore"),
    .target(name: "PinpadControlCore", dependencies: ["PinpadCore"]),
    .target(name: "PinpadScreen", dependencies: ["PinpadCore", "CZlib"]),
    .target(name: "PinpadSystem", dependencies: ["PinpadCore", "CPinpadShim"]),
    .target(
      name: "PinpadInput",
      dependencies: ["PinpadCore", "PinpadSystem", "CPinpadShim", "CLibevdev", "CLibudev"]),
    .target(
      name: "PinpadProgram", dependencies: ["PinpadCore", "PinpadSystem"], swiftSettings: offKeyPath
    ),
    // DRM/KMS through libdrm: its own module, so that only pinpadd links libdrm.
    .target(
      name: "PinpadDRM", dependencies: ["PinpadCore", "PinpadSystem", "CLibdrm"],
      swiftSettings: offKeyPath),
    // TrueType/OpenType fonts through FreeType, as the screens' outline glyph source.
    .target(
      name: "PinpadFreeType", dependencies: ["PinpadScreen", "CFreeType"], swiftSettings: offKeyPath
    ),
    .target(
      name: "PinpadDaemon",
      dependencies: [
        "PinpadCore", "PinpadScreen", "PinpadSystem", "PinpadInput", "PinpadProgram", "PinpadDRM",
        "PinpadFreeType", "CLibdrm",
      ]),
    // pinpadctl's commands: the controller, codes files, hashing and the MQTT bridge.
    // Its own module, so that pinpadd links neither libmosquitto, libcrypt, SQLite nor
    // libcrypto, and pinpadctl neither libevdev nor libudev (nor rebuilds when the daemon
    // changes).
    .target(
      name: "PinpadControl",
      dependencies: [
        "PinpadCore", "PinpadControlCore", "PinpadSystem", "PinpadProgram", "CLibcrypt",
        "CMosquitto", "CSQLite", "CLibcrypto",
      ]),
    .executableTarget(name: "pinpadd", dependencies: ["PinpadDaemon"]),
    .executableTarget(name: "pinpadctl", dependencies: ["PinpadControl"]),
    // `make bench`'s frame timings; neither installed nor packaged.
    .executableTarget(
      name: "pinpadd-bench-frames", dependencies: ["PinpadScreen", "PinpadFreeType"],
      path: "bench/frames"),
    // `make bench`'s replica figures (issue 43); neither installed nor packaged.
    .executableTarget(
      name: "pinpadd-bench-replica", dependencies: ["PinpadControl", "PinpadControlCore"],
      path: "bench/replica"),

    // What the test targets share: temp folders, bounded waits, programs, the pty, evemu
    // recordings written. No product depends on it (nor on PinpadInputTestSupport).
    .target(
      name: "PinpadTestSupport", dependencies: ["PinpadCore", "PinpadSystem"],
      path: "Tests/PinpadTestSupport"),
    // Simulated evdev devices for the keypad stack's tests and the daemon's.
    .target(
      name: "PinpadInputTestSupport",
      dependencies: ["PinpadInput", "PinpadCore", "PinpadSystem", "CLibevdev"],
      path: "Tests/PinpadInputTestSupport"),
    // A few presenter and untrusted-text tests check the console frames they give.
    .testTarget(
      name: "PinpadCoreTests", dependencies: ["PinpadCore", "PinpadScreen", "PinpadTestSupport"]),
    .testTarget(name: "PinpadControlCoreTests", dependencies: ["PinpadControlCore", "PinpadCore"]),
    .testTarget(
      name: "PinpadScreenTests", dependencies: ["PinpadScreen", "PinpadCore", "PinpadFreeType"],
      resources: [.copy("Goldens")]),
    .testTarget(
      name: "PinpadSystemTests", dependencies: ["PinpadSystem", "PinpadCore", "PinpadTestSupport"]),
    .testTarget(name: "PinpadProgramTests", dependencies: ["PinpadProgram", "PinpadCore"]),
    // pinpadctl's shells as values: the decision core's shell, the commands' options.
    .testTarget(
      name: "PinpadControlTests",
      dependencies: ["PinpadControl", "PinpadControlCore", "PinpadCore", "PinpadTestSupport"]),
    .testTarget(
      name: "PinpadInputTests",
      dependencies: [
        "PinpadInput", "PinpadSystem", "PinpadTestSupport", "PinpadInputTestSupport",
      ]),
    .testTarget(
      name: "PinpadDaemonTests",
      dependencies: [
        "PinpadDaemon", "PinpadControl", "PinpadControlCore", "PinpadProgram", "PinpadSystem",
        "PinpadInput", "PinpadScreen", "PinpadTestSupport", "PinpadInputTestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
