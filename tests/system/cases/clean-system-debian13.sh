# rig-boot: clean
# rig-release: trixie
# rig-timeout: 1800
# rig-same-as: clean-system
# clean-system on a clean Debian 13: the same amd64 package (built on Debian 12, with
# swift.org's toolchain) installed with README's "Install on a device" commands into
# `mmdebstrap --variant=minbase --include=systemd-sysv,udev trixie`, booted with that
# root's own systemd (257) as PID 1 on the host's kernel; every check of clean-system.sh.
# In `make test` (run.sh all): ~10 min on the loaded 2-core machine, the trixie tarball
# (~1.5 min, once per fresh clone) included.
