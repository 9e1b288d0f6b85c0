# pinpadd — build, run, test and install.
#
#   make run       set up, build, and run pinpadd on this terminal (no keypad needed)
#                  with a demo controller that grants 1234
#   make test      set up and run every test (unit and end-to-end, built with
#                  AddressSanitizer, every close(2) watched for double closes
#                  (tests/double-close); the unit-file checks (systemd-analyze
#                  verify/security), the package checks (tests/package.sh), a short
#                  fuzzing pass and the QEMU system tests, the package on clean
#                  Debian 12 and Debian 13 among them)
#   make fuzz      run each libFuzzer target for FUZZ_SECONDS (60) seconds (fuzz/README.md)
#   make test-asan the Swift tests built with AddressSanitizer (.build/asan), watched
#   make test-vmlck the VmLck tests against a build without ASan (VMLCK_BIN)
#   make install DESTDIR=... PREFIX=/usr   the release build (Swift runtime linked in)
#   make check     the Swift tests alone (built, then run with every close(2) watched)
#   make deb       pinpadd_VERSION_ARCH.deb and pinpadctl_VERSION_ARCH.deb with debhelper
#                  (debian/), for apt-get install
#   make deb ARCH=arm64   the same two for arm64, cross-compiled on x86-64 with
#                  Debian 13's own Swift in the Debian 13 build root (.build/debian13)
#   make test-debian13    build and run every Swift test with Debian 13's swiftlang 6.0.3
#   make test-releases    that, the arm64 package cross-built and checked, and the amd64
#                  and arm64 packages on clean Debian 13 systems (arm64 emulated); not in
#                  `make test`: ~75 min more on a fresh clone (tests/system/README.md)
#   make bench     the release build's figures beside a C baseline, and a table of each
#                  figure against its goal (bench/README.md; about 5 min on 2 cores,
#                  17 the first time, when it makes its codes files)
#   make bench-idle  the memory figures after an hour of idle (BENCH_IDLE_SECONDS)
#
# The set-up step installs Debian 12 packages with apt-get (as root, or through sudo).
# The Swift 6.3 toolchain itself must already be on PATH (swift.org's Linux build).

PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= debug
SWIFT ?= swift
BIN := .build/$(CONFIGURATION)
RUNDIR := $(CURDIR)/run
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# What `make install` and `make deb` ship: a release build with the Swift runtime linked
# in statically (and libstdc++) and no RUNPATH, so a device needs no toolchain, only
# libudev, libevdev, libdrm, libfreetype, libcrypt, zlib and libc; linked with -z now (full RELRO). Binaries are
# stripped on install (debian/rules installs them unstripped so that dh_strip keeps the
# symbols in pinpadd-dbgsym).
# `make install INSTALL_CONFIGURATION=debug` installs the debug build instead: it only
# runs where the toolchain's libraries are (/opt/swift).
INSTALL_CONFIGURATION ?= release
INSTALL_BIN := .build/$(INSTALL_CONFIGURATION)
INSTALL_STRIP ?= $(if $(filter release,$(INSTALL_CONFIGURATION)),-s)
# Linked by lld with packed relative relocations (DT_RELR, glibc 2.36+): the table of
# relocations the loader applies at start shrinks from 440 KiB to 3 KiB (a smaller
# binary, fewer pages touched at start; bench/README.md).
# Without SwiftPM's --export-dynamic (4 100 symbols in .dynsym, 311 KB: nothing looks
# them up), without unwind tables (tools/discard-unwind-tables.ld says why; 940 KB), and
# with a section per function, so that --gc-sections drops the unused ones (53 KB;
# bench/README.md, "Issue 25, third round"). swiftc marks every public function retained
# (SHF_GNU_RETAIN), so --gc-sections kept all of them, the ones only pinpadctl or the
# tests call too: -internalize-at-link leaves them to the linker like any other (140 KB
# of the daemon; bench/README.md, "Issue 55"). Identical functions are folded where that
# is safe (--icf=safe: those whose address nothing takes, which lld knows only of C and
# C++ objects; the runtime's, 7.8 KB).
# The functions the running daemon executes come first, side by side, then those only
# its start executes (tools/pinpadd.order, made by tools/symbol-order.py): what the loop
# and the start fault in fills a few 64 KiB windows instead of one in every corner of
# the binary (bench/README.md, "fourth round" and "Issue 55"). lld
# skips names a build lacks; SwiftPM does not relink when only the list changes.
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
  -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -internalize-at-link \
  -Xlinker --icf=safe -Xlinker --symbol-ordering-file -Xlinker $(CURDIR)/tools/pinpadd.order \
  -Xlinker --no-warn-symbol-ordering
# Swift 6.0 (Debian 13's swiftlang 6.0.3): its optimizer's copy propagation crashes
# ("All discovered blocks must be live", PrunedLiveness.cpp) on a noncopyable descriptor
# bound inside do/catch, which this code does often; release builds with it turn that
# one pass off (swift.org 6.1+ are not affected).
# RELEASE_SCRATCH=DIR builds the release into DIR instead of .build (tools/test-all.sh
# does, so that it compiles beside the debug build: SwiftPM lets one build at a time
# use a folder).
RELEASE_SCRATCH ?=
ifneq ($(RELEASE_SCRATCH),)
RELEASE_FLAGS += --scratch-path $(RELEASE_SCRATCH)
ifeq ($(INSTALL_CONFIGURATION),release)
INSTALL_BIN := $(RELEASE_SCRATCH)/release
endif
endif
SWIFT_6_0 := $(shell $(SWIFT) --version 2>/dev/null | grep -q 'Swift version 6\.0\.' && echo 1)
RELEASE_FLAGS += $(if $(SWIFT_6_0),-Xswiftc -Xfrontend -Xswiftc -enable-copy-propagation=false)
# The unwind tables go, and the runtime's zero-filled backtrace settings leave the file
# (tools/nobits-backtrace-settings.ld: 64 KiB), everywhere but there: 6.0.3's lld
# (LLVM 17) fails an assertion on an INSERT script beside the --defsym main= that
# SwiftPM gives every executable, so its builds (the arm64 package among them) keep both.
RELEASE_FLAGS += $(if $(SWIFT_6_0),,-Xlinker --no-eh-frame-hdr -Xlinker -T \
  -Xlinker $(CURDIR)/tools/discard-unwind-tables.ld \
  -Xlinker -T -Xlinker $(CURDIR)/tools/nobits-backtrace-settings.ld)

# Debian 13 (trixie) has its own Swift, swiftlang 6.0.3. tools/debian13-root.sh makes a
# trixie root with it under .build/debian13/root (once: ~2.9 GB, Debian's mirror), and
# tools/debian13.sh runs a command in it with this tree at /src. Its builds use their
# own folders under .build/debian13, never .build/debug or .build/release.
# `make deb ARCH=arm64` cross-compiles there: trixie's amd64 swiftlang targeting
# aarch64-unknown-linux-gnu, the arm64 -dev packages installed multiarch in that root
# (so dpkg-shlibdeps and lintian work as in any Debian cross build), the arm64 Swift
# runtime from the arm64 swiftlang/libswiftlang packages (/opt/swift-arm64, its static
# resources), linked by lld; then debhelper with DEB_HOST_ARCH=arm64.
HOST_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
# Units and udev rules go to /lib (Debian 12; the amd64 package built there installs on
# 12 and 13), and to /usr/lib when built in the Debian 13 root (its lintian rejects /lib:
# merged /usr).
LIBDIR := $(if $(filter 1,$(PINPADD_DEBIAN13)),/usr/lib,/lib)
ARCH ?= $(HOST_ARCH)
DEBIAN13_BUILD := .build/debian13/build
ARM64_BUILD := .build/debian13/arm64
ARM64_RUNTIME := /opt/swift-arm64/usr/libexec/swift/lib/swift_static
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH),arm64)
$(error ARCH=$(ARCH): only arm64 is cross-built (on amd64))
endif
ifeq ($(PINPADD_DEBIAN13),1)
# Inside the Debian 13 root (tools/debian13.sh sets PINPADD_DEBIAN13=1).
RELEASE_FLAGS += --scratch-path $(ARM64_BUILD) --destination $(ARM64_BUILD)/destination.json
INSTALL_BIN := $(ARM64_BUILD)/aarch64-unknown-linux-gnu/release
# SwiftPM reads PKG_CONFIG_PATH before its own default (the build machine's) folders.
export PKG_CONFIG_PATH := /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
export PKG_CONFIG_LIBDIR := $(PKG_CONFIG_PATH)
endif
endif
# libstdc++ is linked in statically too (what the Swift runtime uses of it: 60 KB): the
# loader then resolves no C++ symbols at each start (2 300 symbol relocations become
# 630; half of the instructions from exec to the first accepted connection, bench/
# README.md "sixth round"). The runtime's own `-lstdc++` finds the archive first in this
# folder, which holds nothing else; it is the newest GCC's, the one clang links against.
STATIC_CXX := $(CURDIR)/.build/static-libstdc++/$(ARCH)$(if $(filter 1,$(PINPADD_DEBIAN13)),-debian13)
STATIC_CXX_TRIPLET := $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu,x86_64-linux-gnu)
RELEASE_FLAGS += -Xlinker -L$(STATIC_CXX)

# The static Swift runtime the release programs link against: the toolchain's own, with
# its archives' public functions no longer marked retained (tools/static-stdlib.py says
# why), so that the linker drops those nothing calls: 0.86 MB of each program. Its
# modules and headers are the toolchain's (links), so only the link differs.
STATIC_STDLIB := $(CURDIR)/.build/static-stdlib/$(ARCH)$(if $(filter 1,$(PINPADD_DEBIAN13)),-debian13)

RELEASE_FLAGS += $(if $(filter $(ARCH),$(HOST_ARCH)),-Xswiftc -resource-dir -Xswiftc $(STATIC_STDLIB))

$(STATIC_STDLIB)/linux/libswiftCore.a: tools/static-stdlib.py
	@source=$(if $(filter $(ARCH),$(HOST_ARCH)),$$(swiftc -print-target-info | python3 -c \
	  'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')_static,$(ARM64_RUNTIME)); \
	  tools/static-stdlib.py "$$source" $(STATIC_STDLIB)

$(STATIC_CXX)/libstdc++.a:
	@archive=$$(ls -v /usr/lib/gcc/$(STATIC_CXX_TRIPLET)/*/libstdc++.a 2>/dev/null | tail -n 1); \
	  [ -n "$$archive" ] || { echo "no /usr/lib/gcc/$(STATIC_CXX_TRIPLET)/*/libstdc++.a (libstdc++-dev)" >&2; exit 1; }; \
	  mkdir -p $(@D) && ln -sf "$$archive" $@

# Every unit in systemd/ is installed (and so packaged): a new unit needs no line here.
UNITS := $(notdir $(wildcard systemd/*.service systemd/*.socket))

# Build dependencies, then what the tests use: real Debian console fonts and DejaVu, QEMU with a
# kernel and busybox for the system tests, evemu and socat as real tools in the guest,
# Mosquitto (broker, clients) and openssl for the MQTT bridge tests. python3 runs
# tools/static-stdlib.py for the release builds.
BUILD_DEPS := pkg-config libevdev-dev libudev-dev libcrypt-dev zlib1g-dev libmosquitto-dev libsqlite3-dev libssl-dev \
              libdrm-dev libfreetype-dev python3
# Packaging: debhelper builds the .deb, lintian checks it, mmdebstrap makes the clean
# Debian 12 and 13 roots the package is installed into under QEMU (and the Debian 13
# build root). arm64: qemu-system-arm boots the arm64 root, qemu-user-static runs its
# programs (mmdebstrap, apt-get in its chroot, the arm64 binaries in tests/package.sh).
DEB_DEPS := debhelper dpkg-dev
TEST_DEPS := console-setup-linux fonts-dejavu-core kbd util-linux systemd python3 evemu-tools socat \
             qemu-system-x86 linux-image-amd64 busybox-static groff-base \
             mosquitto mosquitto-clients openssl $(DEB_DEPS) lintian mmdebstrap \
             qemu-system-arm qemu-user-static xz-utils sqlite3 procps

.PHONY: all build release deps deb-deps test-deps run listen check test test-system fuzz build-asan test-asan test-vmlck bench bench-idle bench-deps install install-pinpadd install-pinpadctl deb format clean test-debian13 debian13-root test-releases

all: build

.deps-stamp:
	@if ! dpkg -s $(BUILD_DEPS) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BUILD_DEPS); \
	fi
	@touch $@

deps: .deps-stamp

deb-deps: deps
	@if ! dpkg -s $(DEB_DEPS) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_DEPS); \
	fi

test-deps: deps
	@if ! dpkg -s $(TEST_DEPS) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TEST_DEPS); \
	fi

build: deps
	$(SWIFT) build -c $(CONFIGURATION)

ifeq ($(ARCH)$(PINPADD_DEBIAN13),arm641)
release: $(ARM64_BUILD)/destination.json $(STATIC_CXX)/libstdc++.a $(STATIC_STDLIB)/linux/libswiftCore.a
	$(SWIFT) build $(RELEASE_FLAGS)

# SwiftPM's cross destination (v1): this root's toolchain, "/" as the SDK (the arm64
# headers and libraries are installed multiarch), the arm64 static Swift runtime.
$(ARM64_BUILD)/destination.json: Makefile
	@mkdir -p $(@D)
	printf '%s\n' '{"version":1,"sdk":"/","toolchain-bin-dir":"/usr/libexec/swift/bin",' \
	  '"target":"aarch64-unknown-linux-gnu","extra-cc-flags":[],"extra-cpp-flags":[],' \
	  '"extra-swiftc-flags":["-resource-dir","$(STATIC_STDLIB)","-use-ld=lld","-Xlinker","--build-id"]}' >$@
else
# SwiftPM relinks nothing when only tools/pinpadd.order changed: the programs are
# removed then, so that they are linked again in the new order.
release: deps $(STATIC_CXX)/libstdc++.a $(STATIC_STDLIB)/linux/libswiftCore.a
	@dir=$(or $(RELEASE_SCRATCH),.build)/release; \
	  if [ -e $$dir/pinpadd ] && [ tools/pinpadd.order -nt $$dir/pinpadd ]; then \
	    rm -f $$dir/pinpadd $$dir/pinpadctl; fi
	$(SWIFT) build $(RELEASE_FLAGS)
endif

# pinpadd reading this terminal and drawing on it, with a demo controller that grants
# the code 1234 (DEMO=no: none; answer by hand within VerdictTimeoutSec, 10 s).
# The socket, state, codes and logs are in ./run. Watch the events from a second
# terminal with:  make listen
run: deps
	@SWIFT="$(SWIFT)" CONFIGURATION=$(CONFIGURATION) tools/run-demo.sh $(BIN) $(RUNDIR) $(CURDIR)/examples/pinpadd.conf

listen:
	$(BIN)/pinpadctl --socket $(RUNDIR)/pinpadd.sock listen

# The Swift tests alone: every suite, with every close(2) watched for double closes.
check: deps
	$(SWIFT) build --build-tests
	tests/double-close/run.sh tools/swift-tests.sh

# Every piece of `make test`, side by side where both cores stay busy (tools/test-all.sh
# says which): the ASan build and its Swift tests (every close watched), the VmLck
# tests, the bench smoke, the unit checks, the fuzzing pass, the release build, the
# packages and tests/package.sh, and every QEMU case of tests/system/run.sh all (the
# worktree's cases on the release build). No debug build: `make check` is that.
test: test-deps deb-deps
	SWIFT="$(SWIFT)" MAKE="$(MAKE)" FUZZ_SECONDS=$(FUZZ_CI_SECONDS) FUZZ_RUNS=$(FUZZ_CI_RUNS) \
	  tools/test-all.sh

# Debian 13 and arm64 (issue 20): every Swift test with Debian 13's swiftlang 6.0.3,
# the arm64 package cross-built and checked, and the amd64 and arm64 packages on clean
# Debian 13 systems under QEMU (tools/test-releases.sh: the mmdebstrap runs overlap).
test-releases: test-deps
	tools/test-releases.sh

# Fuzzing (fuzz/README.md): each target for FUZZ_SECONDS; `make test` runs a short,
# repeatable pass: FUZZ_CI_RUNS inputs each with a fixed seed, at most FUZZ_CI_SECONDS.
# New inputs and crashes go to .build/fuzz, never the repo.
FUZZ_SECONDS ?= 60
FUZZ_CI_SECONDS ?= 90
FUZZ_CI_RUNS ?= 150000
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

# The Swift tests built with AddressSanitizer into their own build dir, every close(2)
# watched as in `make check` (`make test` runs the Swift tests this way only).
# Leak checks are off: the Swift runtime's caches live as long as the process.
# Skipped: the VmLck tests of pinpadd, pinpadctl serve/listen and the bridge (ASan turns
# mlock(2) into a no-op, so no page is ever locked); `make test-vmlck` runs those.
ASAN_BUNDLE := .build/asan/debug/pinpaddPackageTests.xctest
VMLCK_TESTS := pagesAreLockedWhileAnEntryIsOpen|secretBuffersAreLocked|bridgeBufferIsLocked
build-asan: deps
	$(SWIFT) build --build-tests --build-path .build/asan -Xswiftc -sanitize=address -Xcc -fsanitize=address
test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=0 SWIFT_TEST_SKIP='$(VMLCK_TESTS)' \
	  tests/double-close/run.sh tools/swift-tests.sh $(ASAN_BUNDLE)

# The three VmLck tests (from the ASan bundle) against the programs of a build without
# ASan, VMLCK_BIN (make test: the release build the packages ship). Fails unless all
# three ran and passed (they need root and mosquitto).
VMLCK_BIN ?= .build/release
test-vmlck: build-asan
	ASAN_OPTIONS=detect_leaks=0 NO_COLOR=1 PINPADD_BIN_DIR=$(abspath $(VMLCK_BIN)) \
	  $(ASAN_BUNDLE) --testing-library swift-testing --filter '$(VMLCK_TESTS)' 2>&1 | \
	  tee .build/vmlck.log
	grep -q 'Test run with 3 tests in .* passed' .build/vmlck.log

# Only the QEMU system tests (a real kernel with USB keyboards, udev and a framebuffer;
# clean-system installs the package that `make deb` builds).
test-system: test-deps
	$(SWIFT) build
	$(MAKE) deb
	tests/system/run.sh all

# Benchmarks print figures (and ratios against the C baseline, bench/baseline.c, from
# the same run), then a table of each figure beside its goal (✓/✗); they assert nothing,
# so they are not part of `make test` (which only runs `bench/run.sh --smoke`).
# bench/README.md says what each figure means. strace counts the syscalls per code,
# valgrind (callgrind) the instructions.
# `make bench` takes no idle reading of the memory part (BENCH_IDLE_SECONDS=N adds one
# after N s, beside the other parts); `make bench-idle` runs the memory part alone, its
# last reading after BENCH_IDLE_SECONDS (3600) of idle.
BENCH_DEPS := strace valgrind python3
bench-deps:
	@if ! dpkg -s $(BENCH_DEPS) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_DEPS); \
	fi
bench: release bench-deps
	bench/run.sh .build/release
bench-idle: release bench-deps
	bench/run.sh --idle .build/release

# Two parts, one per Debian package (debian/rules installs each into its own):
# install-pinpadd: the daemon, its socket and unit, the udev rules, its user, pinpadd(8),
# pinpadd.conf(5) and the example configuration; install-pinpadctl: the client, the
# controllers and the bridge, the units that run pinpadctl (ExecStart=@BINDIR@/pinpadctl),
# their users and pinpadctl(1).
CTL_UNITS := $(notdir $(shell grep -l '^ExecStart=@BINDIR@/pinpadctl' $(wildcard systemd/*.service)))
DAEMON_UNITS := $(filter-out $(CTL_UNITS),$(UNITS))
install_units = for unit in $(1); do \
	  sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@BINDIR@|$(PREFIX)/bin|g' systemd/$$unit \
	    > $(DESTDIR)$(LIBDIR)/systemd/system/$$unit && chmod 0644 $(DESTDIR)$(LIBDIR)/systemd/system/$$unit; \
	done
INSTALL_BUILD := $(if $(filter release,$(INSTALL_CONFIGURATION)),release,build)

install: install-pinpadd install-pinpadctl

install-pinpadd: $(INSTALL_BUILD)
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 $(INSTALL_STRIP) $(INSTALL_BIN)/pinpadd $(DESTDIR)$(PREFIX)/sbin/pinpadd
	install -d $(DESTDIR)$(LIBDIR)/systemd/system $(DESTDIR)$(LIBDIR)/udev/rules.d $(DESTDIR)/etc/pinpadd
	$(call install_units,$(DAEMON_UNITS))
	install -m 0644 udev-rules/70-pinpadd.rules $(DESTDIR)$(LIBDIR)/udev/rules.d/70-pinpadd.rules
	install -m 0644 examples/pinpadd.conf $(DESTDIR)/etc/pinpadd/pinpadd.conf.example
	install -d $(DESTDIR)/usr/lib/sysusers.d
	install -m 0644 systemd/pinpadd.sysusers $(DESTDIR)/usr/lib/sysusers.d/pinpadd.conf
	install -d $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0644 man/pinpadd.8 $(DESTDIR)$(PREFIX)/share/man/man8/pinpadd.8
	install -m 0644 man/pinpadd.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/pinpadd.conf.5

install-pinpadctl: $(INSTALL_BUILD)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(INSTALL_STRIP) $(INSTALL_BIN)/pinpadctl $(DESTDIR)$(PREFIX)/bin/pinpadctl
	install -d $(DESTDIR)$(LIBDIR)/systemd/system $(DESTDIR)/etc/pinpadd
	$(call install_units,$(CTL_UNITS))
	install -d $(DESTDIR)/usr/lib/sysusers.d
	install -m 0644 systemd/pinpadctl.sysusers $(DESTDIR)/usr/lib/sysusers.d/pinpadctl.conf
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 man/pinpadctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/pinpadctl.1

# The Debian packages, built by debhelper from debian/ (nothing in it is specific to an
# architecture: on an arm64 Debian 12 with swift.org's aarch64 toolchain the same command
# gives the arm64 ones). Output: ./pinpadd_VERSION_ARCH.deb (the daemon),
# ./pinpadctl_VERSION_ARCH.deb (client, controllers, bridge) and their detached debug
# symbols ./pinpadd-dbgsym_VERSION_ARCH.deb, ./pinpadctl-dbgsym_VERSION_ARCH.deb.
DEB_PACKAGES := pinpadd pinpadctl
DEB_OUTPUTS = $(foreach p,$(DEB_PACKAGES),$(p)_*_$(ARCH).deb $(p)-dbgsym_*_$(ARCH).deb)
DEB_LEFTOVERS := $(addprefix debian/,$(DEB_PACKAGES)) debian/.debhelper debian/files \
  debian/*.substvars debian/debhelper-build-stamp debian/*.debhelper debian/*.debhelper.log

# debhelper works in debian/ (debian/files, debian/PACKAGE): one package build at a time
# uses it (flock on .build/deb.lock), so make test can build amd64 and arm64 side by side.
DEB_LOCK := flock $(CURDIR)/.build/deb.lock
CROSS_DEB := DEB_BUILD_OPTIONS=nocheck dpkg-architecture -a$(ARCH) -c debian/rules binary
ifeq ($(ARCH),$(HOST_ARCH))
deb: deb-deps release
	@mkdir -p .build
	$(DEB_LOCK) sh -c 'rm -rf $(DEB_OUTPUTS) $(DEB_LEFTOVERS) && debian/rules binary'
else ifeq ($(PINPADD_DEBIAN13),1)
deb: release
	@mkdir -p .build
	$(DEB_LOCK) sh -c 'rm -rf $(DEB_OUTPUTS) $(DEB_LEFTOVERS) && $(CROSS_DEB)'
else
deb: test-deps
	tools/debian13.sh make deb ARCH=$(ARCH)
endif

# The Debian 13 root (tools/debian13-root.sh), then every Swift test built and run there
# with swiftlang 6.0.3 (its build folder: .build/debian13/build).
debian13-root:
	tools/debian13-root.sh

test-debian13: test-deps debian13-root
	tools/debian13.sh swift build --build-tests --scratch-path $(DEBIAN13_BUILD)
	tools/debian13.sh swift test --skip-build --scratch-path $(DEBIAN13_BUILD)

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build $(RUNDIR) .deps-stamp $(foreach p,$(DEB_PACKAGES),$(p)_*.deb $(p)-dbgsym_*.deb)
	rm -rf $(DEB_LEFTOVERS)
