# pinpadd — build, run, test and install.
#
#   make run       set up, build, and run pinpadd on this terminal (no keypad needed)
#   make test      set up and run every test (unit, end-to-end, the unit-file checks
#                  (systemd-analyze verify/security) and the QEMU system tests)
#   make install DESTDIR=... PREFIX=/usr
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

# Build dependencies, then what the tests use: real Debian console fonts, QEMU with a
# kernel and busybox for the system tests, evemu and socat as real tools in the guest,
# Mosquitto (broker, clients) and openssl for the MQTT bridge tests.
BUILD_DEPS := pkg-config libevdev-dev libudev-dev libcrypt-dev zlib1g-dev libmosquitto-dev
TEST_DEPS := console-setup-linux kbd util-linux systemd python3 evemu-tools socat \
             qemu-system-x86 linux-image-amd64 busybox-static mosquitto mosquitto-clients openssl

.PHONY: all build deps test-deps run listen test test-system bench install format clean

all: build

.deps-stamp:
	@if ! dpkg -s $(BUILD_DEPS) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BUILD_DEPS); \
	fi
	@touch $@

deps: .deps-stamp

test-deps: deps
	@if ! dpkg -s $(TEST_DEPS) >/dev/null 2>&1; then \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TEST_DEPS); \
	fi

build: deps
	$(SWIFT) build -c $(CONFIGURATION)

# pinpadd reading this terminal, drawing on it, and handing codes to a socket in ./run.
# Watch the codes from a second terminal with:  make listen
run: build
	@mkdir -p $(RUNDIR)
	@echo "Type a PIN (4 to 8 digits) and Enter; Backspace, Esc clears, Ctrl-C stops."
	@echo "In another terminal:  make listen    (or: $(BIN)/pinpadctl --socket $(RUNDIR)/pinpadd.sock listen)"
	@sleep 2
	$(BIN)/pinpadd --input terminal --display console --socket $(RUNDIR)/pinpadd.sock \
	  --state-dir $(RUNDIR)/state --config $(CURDIR)/examples/pinpadd.conf

listen:
	$(BIN)/pinpadctl --socket $(RUNDIR)/pinpadd.sock listen

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	tests/systemd-units.sh
	tests/system/run.sh all

# Only the QEMU system tests (a real kernel with USB keyboards, udev and a framebuffer).
test-system: test-deps
	$(SWIFT) build
	tests/system/run.sh all

# Benchmarks print figures (and ratios against a baseline from the same run); they
# assert nothing, so they are not part of `make test`.
bench: deps
	PINPADD_BENCHMARK=1 $(SWIFT) test -c release --filter RedrawTimingTests

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 $(BIN)/pinpadd $(DESTDIR)$(PREFIX)/sbin/pinpadd
	install -m 0755 $(BIN)/pinpadctl $(DESTDIR)$(PREFIX)/bin/pinpadctl
	install -d $(DESTDIR)/lib/systemd/system $(DESTDIR)/lib/udev/rules.d $(DESTDIR)/etc/pinpadd
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' systemd/pinpadd.service > $(DESTDIR)/lib/systemd/system/pinpadd.service
	install -m 0644 systemd/pinpadd.socket $(DESTDIR)/lib/systemd/system/pinpadd.socket
	install -m 0644 udev-rules/70-pinpadd.rules $(DESTDIR)/lib/udev/rules.d/70-pinpadd.rules
	install -m 0644 examples/pinpadd.conf $(DESTDIR)/etc/pinpadd/pinpadd.conf.example
	install -d $(DESTDIR)/usr/lib/sysusers.d
	install -m 0644 systemd/pinpadd.sysusers $(DESTDIR)/usr/lib/sysusers.d/pinpadd.conf
	install -d $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 man/pinpadd.8 $(DESTDIR)$(PREFIX)/share/man/man8/pinpadd.8
	install -m 0644 man/pinpadctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/pinpadctl.1

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build $(RUNDIR) .deps-stamp
