// swift-tools-version:6.0
// pinpadd — a PIN-entry daemon for Linux keypads.
// SPDX-License-Identifier: Apache-2.0 (LICENSE)
//
// Layers, bottom up:
//   C*            system libraries (pkg-config: libevdev, libudev, libcrypt, zlib, libmosquitto)
//                 and one C shim for what Swift cannot import
//   PinpadCore    the entry rules, configuration, protocol: pure Swift, no Glibc, no Foundation
//   PinpadScreen  layout and raster for the framebuffer and snapshots: pure Swift + zlib
//   PinpadSystem  thin typed wrappers over Linux syscalls, evdev, udev, framebuffer
//   PinpadDaemon  the daemon: event loop, inputs, socket server, displays
//   PinpadControl pinpadctl's commands: controller, codes files, MQTT bridge (libmosquitto)
//   pinpadd, pinpadctl  the two programs
import PackageDescription

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
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "CPinpadShim"),

    .target(name: "PinpadCore"),
    .target(name: "PinpadScreen", dependencies: ["PinpadCore", "CZlib"]),
    .target(
      name: "PinpadSystem",
      dependencies: ["PinpadCore", "CPinpadShim", "CLibevdev", "CLibudev"]),
    .target(
      name: "PinpadDaemon",
      dependencies: ["PinpadCore", "PinpadScreen", "PinpadSystem"]),
    // pinpadctl's commands: the controller, codes files, hashing and the MQTT bridge.
    // Its own module, so that pinpadd links neither libmosquitto nor libcrypt.
    .target(
      name: "PinpadControl",
      dependencies: ["PinpadDaemon", "CLibcrypt", "CMosquitto", "CSQLite"]),
    .executableTarget(name: "pinpadd", dependencies: ["PinpadDaemon"]),
    .executableTarget(name: "pinpadctl", dependencies: ["PinpadControl"]),
    // `make bench`'s frame timings; neither installed nor packaged.
    .executableTarget(
      name: "pinpadd-bench-frames", dependencies: ["PinpadScreen"], path: "bench/frames"),

    .testTarget(name: "PinpadCoreTests", dependencies: ["PinpadCore"]),
    .testTarget(
      name: "PinpadScreenTests", dependencies: ["PinpadScreen"], resources: [.copy("Goldens")]),
    .testTarget(name: "PinpadSystemTests", dependencies: ["PinpadSystem"]),
    .testTarget(name: "PinpadDaemonTests", dependencies: ["PinpadDaemon", "PinpadControl"]),
  ],
  swiftLanguageModes: [.v6]
)
