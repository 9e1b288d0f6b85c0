#!/bin/bash
# Runs a command in the Debian 13 build root (tools/debian13-root.sh makes it once, under
# .build/debian13/root) with this worktree bind-mounted at /src (the command's cwd),
# proc, sys, dev and a fresh /tmp, in a mount namespace of its own so nothing stays
# mounted. Builds inside use their own build folders under .build/debian13, never the
# host's .build/debug or .build/release (swift.org 6.3 objects).
# Usage: tools/debian13.sh COMMAND [ARG...]    (as root)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
root=${DEBIAN13_ROOT:-$src/.build/debian13/root}
[[ $# -gt 0 ]] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 64; }
"$src/tools/debian13-root.sh" "$root"
exec unshare -m --propagation private bash -euo pipefail -c '
  root=$1 src=$2
  shift 2
  # The root a mount point of its own, so that unshare(1) inside it can make / private.
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/tmp"
  mkdir -p "$root/src"
  mount --bind "$src" "$root/src"
  exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb PINPADD_DEBIAN13=1 \
    /bin/sh -c "cd /src && exec \"\$@\"" sh "$@"
' debian13 "$root" "$src" "$@"
