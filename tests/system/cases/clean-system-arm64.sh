# rig-boot: clean
# rig-release: trixie
# rig-arch: arm64
# rig-timeout: 3600
# rig-same-as: clean-system
# rig-not-in-all: ~40 min on the loaded 2-core machine, plus 21 min for its tarball on a fresh clone: make test-releases
# Seen passing end to end once (tests/system/README.md has its timings).
# clean-system on arm64: `make deb ARCH=arm64`'s package installed with README's
# "Install on a device" commands into a clean Debian 13 arm64 root
# (`mmdebstrap --architectures=arm64 --variant=minbase --include=systemd-sysv,udev
# trixie`, its maintainer scripts and the setup's apt-get run under qemu-user-static),
# booted on trixie's own arm64 kernel by qemu-system-aarch64 (-M virt, -cpu cortex-a72,
# TCG) with that root's systemd as PID 1: socket activation, the site udev rule, a PIN
# typed on the QMP USB keyboard reaching `pinpadctl listen` and granted by
# pinpadd-serve, remove and purge — every check of clean-system.sh.
