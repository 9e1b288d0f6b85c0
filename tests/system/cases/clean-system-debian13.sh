# rig-boot: clean
# rig-release: trixie
# rig-timeout: 900
# rig-same-as: clean-system
# rig-not-in-all: run by make test-releases (not yet timed inside make test)
# clean-system on a clean Debian 13: the same amd64 package (built on Debian 12, with
# swift.org's toolchain) installed with README's "Install on a device" commands into
# `mmdebstrap --variant=minbase --include=systemd-sysv,udev trixie`, booted with that
# root's own systemd (257) as PID 1 on the host's kernel; every check of clean-system.sh.
