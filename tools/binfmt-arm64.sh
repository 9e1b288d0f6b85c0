#!/bin/bash
# Registers qemu-user-static's aarch64 handler with the kernel's binfmt_misc, so that
# arm64 programs run on this amd64 machine, in chroots too (the handler is opened at
# registration, flag F): the arm64 package's checks (tests/package.sh in the Debian 13
# root) and the arm64 clean root (tests/system/lib/clean-tarball.sh). Once per boot;
# a handler already there is left as it is. Usage: tools/binfmt-arm64.sh  (as root)
set -euo pipefail
binfmt=/proc/sys/fs/binfmt_misc
[[ -f $binfmt/register ]] || mount -t binfmt_misc binfmt_misc $binfmt
[[ -e $binfmt/qemu-aarch64 ]] && exit 0
[[ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]] ||
  { echo "binfmt-arm64: no qemu-aarch64 binfmt (apt-get install qemu-user-static)" >&2; exit 69; }
cat /usr/lib/binfmt.d/qemu-aarch64.conf >$binfmt/register
