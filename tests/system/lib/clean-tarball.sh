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
  # qemu-user-static's binfmt handler is opened at registration (flag F), so it works
  # inside chroots too.
  binfmt=/proc/sys/fs/binfmt_misc
  [[ -f $binfmt/register ]] || mount -t binfmt_misc binfmt_misc $binfmt
  if [[ ! -e $binfmt/qemu-aarch64 ]]; then
    [[ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]] ||
      { echo "rig: no qemu-aarch64 binfmt (apt-get install qemu-user-static)" >&2; exit 69; }
    cat /usr/lib/binfmt.d/qemu-aarch64.conf >$binfmt/register
  fi
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
