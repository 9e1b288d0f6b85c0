#!/bin/bash
# Makes (once) the Debian 13 (trixie) build root under .build/debian13/root: Debian's own
# Swift (swiftlang 6.0.3) with pinpadd's build and test dependencies (amd64), and what
# cross-compiling to arm64 needs: the arm64 -dev packages installed multiarch (so that
# dpkg-shlibdeps finds them as a Debian cross build does), binutils-aarch64-linux-gnu,
# and the arm64 swiftlang/libswiftlang unpacked under /opt/swift-arm64 (their static
# runtime). The arm64 kernel and busybox-static packages for the QEMU case are kept
# under /opt/debs.
# `make test-debian13` builds and tests in it; `make deb ARCH=arm64` cross-compiles in it.
# Usage: tools/debian13-root.sh [ROOT]   (as root; Debian's mirror needed the first time)
# A root made with an older package list gets the missing packages with apt-get (the
# list it has is in ROOT/.complete), instead of being made again.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$here/.build/debian13/root}
native="swiftlang pkg-config libevdev-dev libudev-dev libdrm-dev libfreetype-dev libcrypt-dev zlib1g-dev libmosquitto-dev
  libsqlite3-dev libssl-dev make util-linux systemd kbd console-setup-linux groff-base python3 mosquitto
  mosquitto-clients openssl debhelper dpkg-dev lintian binutils-aarch64-linux-gnu file sqlite3"
cross="libc6-dev libgcc-14-dev libstdc++-14-dev libevdev-dev libudev-dev libdrm-dev libfreetype-dev libcrypt-dev
  zlib1g-dev libmosquitto-dev libsqlite3-dev libssl-dev linux-libc-dev"
include=$(echo $native $(for p in $cross; do echo "$p:arm64"; done) | tr ' ' ,)
[[ -f $root/.complete && $(cat "$root/.complete") == "$include" ]] && exit 0
[[ $(id -u) -eq 0 ]] || { echo "debian13-root: needs root (mmdebstrap, chroot)" >&2; exit 69; }
if [[ -f $root/.complete ]]; then
  echo "debian13-root: the package list changed: apt-get install into $root"
  # One at a time (flock): several builds may start at once.
  exec 9>"$root.lock"
  flock 9
  [[ $(cat "$root/.complete") == "$include" ]] && exit 0
  unshare -m --propagation private bash -euo pipefail -c '
    root=$1
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      DEBIAN_FRONTEND=noninteractive sh -ec "apt-get update -qq && apt-get install -y -qq $2"
  ' debian13-root "$root" "$(tr , ' ' <<<"$include")"
  echo "$include" >"$root/.complete"
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "debian13-root: mmdebstrap not found (make test-deps)" >&2; exit 69; }
start=$(date +%s)
# A killed mmdebstrap leaves its mounts (proc, sys, dev/pts, dev/shm) in the half-made
# root: unmount them first, and never remove through a mount point.
if [[ -d $root.tmp ]]; then
  findmnt -rn -o TARGET | { grep -F "$(realpath "$root.tmp")/" || true; } | sort -r |
    while read -r mounted; do umount -l "$mounted"; done
  rm -rf --one-file-system "$root.tmp"
fi
mkdir -p "$(dirname "$root")"
echo "debian13-root: mmdebstrap trixie (amd64 + arm64 multiarch) into $root"
mmdebstrap --quiet --variant=minbase --architectures=amd64,arm64 --include="$include" \
  --customize-hook='chroot "$1" sh -ec "mkdir -p /opt/debs && cd /opt/debs &&
    apt-get download -q swiftlang:arm64 libswiftlang:arm64 &&
    kernel=\$(apt-cache depends linux-image-arm64:arm64 | sed -n \"s/^ *Depends: \(linux-image-[^ :]*\).*/\1/p\" | head -1) &&
    apt-get download -q \$kernel:arm64 busybox-static:arm64 &&
    mkdir -p /opt/swift-arm64 &&
    for d in swiftlang_*_arm64.deb libswiftlang_*_arm64.deb; do dpkg-deb -x \$d /opt/swift-arm64; done &&
    rm -f swiftlang_*_arm64.deb"' \
  trixie "$root.tmp"
echo "$include" >"$root.tmp/.complete"
rm -rf "$root"
mv "$root.tmp" "$root"
echo "debian13-root: took $(($(date +%s) - start)) s, $(du -sh "$root" | cut -f1)"
