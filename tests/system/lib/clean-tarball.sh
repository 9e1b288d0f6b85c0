#!/bin/bash
# Makes (once) the cached clean root of a `# rig-boot: clean` case:
# `mmdebstrap --variant=minbase --include=systemd-sysv,udev RELEASE` for ARCH, as a
# tarball under WORKTREE/.build/system-tests (Debian's mirror is needed the first time).
# A foreign ARCH (arm64 on amd64) runs its maintainer scripts (and the case's setup
# chroot) under qemu-user-static, through a binfmt handler registered here when
# missing. Run by lib/clean-root.sh, and ahead of the cases by `make test-releases`
# (beside the compiles). Concurrent calls for one tarball make it once (flock).
# Usage: clean-tarball.sh RELEASE ARCH WORKTREE    (as root; prints the tarball's path)
set -euo pipefail
release=$1 arch=$2 source=$3
[[ $(id -u) -eq 0 ]] || { echo "rig: a clean root needs root (mmdebstrap)" >&2; exit 69; }
cache=$source/.build/system-tests
tarball=$cache/$release-$arch-minbase.tar
mkdir -p "$cache"
if [[ $arch != $(dpkg --print-architecture) ]]; then
  "$source/tools/binfmt-arm64.sh"
fi
if [[ ! -f $tarball ]]; then
  exec 9>"$tarball.lock"
  flock 9
fi
if [[ ! -f $tarball ]]; then
  command -v mmdebstrap >/dev/null || { echo "rig: mmdebstrap not found (apt-get install mmdebstrap)" >&2; exit 69; }
  echo "rig: making the clean $release $arch root (mmdebstrap, once)" >&2
  start=$(date +%s)
  mmdebstrap --quiet --format=tar --variant=minbase --architectures="$arch" \
    --include=systemd-sysv,udev "$release" "$tarball.tmp" >&2
  mv "$tarball.tmp" "$tarball"
  echo "rig: mmdebstrap $release $arch took $(($(date +%s) - start)) s" >&2
fi
echo "$tarball"
