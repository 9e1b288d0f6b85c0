#!/bin/bash
# Prepares a clean Debian root for a case with `# rig-boot: clean` (run by run.sh on
# the host, as root, before QEMU starts):
#  1. the root: `mmdebstrap --variant=minbase --include=systemd-sysv,udev RELEASE`
#     (RIG_RELEASE: bookworm, the default, or trixie; RIG_ARCH: amd64, the default, or
#     arm64, made through qemu-user-static's binfmt handler), made once and cached as a
#     tarball in .build/system-tests (Debian's mirror is needed the first time),
#     extracted into a folder beside IMAGE;
#  2. the worktree's pinpadd_*_ARCH.deb and pinpadctl_*_ARCH.deb copied to its /root,
#     then `case.sh setup` run in a chroot of it (cwd /root; proc, sys, dev and
#     resolv.conf from the host) inside a mount namespace of its own, so nothing stays
#     mounted when it ends (for arm64 the chroot's programs run under qemu-user-static);
#  3. the boot: an empty fstab, a machine id, no getty, timers or first-boot prompts,
#     and rig.target (basic.target + rig-case.service, which runs `case.sh` with its
#     output on the serial console, /dev/ttyS0 or on arm64 /dev/ttyAMA0, writes the
#     result file and powers off);
#  4. IMAGE: an ext4 file system made from the folder (`mke2fs -d`, owners and modes
#     kept; the folder is removed). run.sh gives it to QEMU as a virtio disk and
#     lib/boot-clean.sh (in the initramfs) boots its systemd from it. A disk, not a 9p
#     share: dpkg, systemd-tmpfiles and udev walk thousands of files, and each 9p
#     request is a round trip through the emulated guest (minutes under TCG).
# Usage: clean-root.sh IMAGE SCRATCH WORKTREE
set -euo pipefail
image=$1
root=$image.d
scratch=$2
source=$3
here=$(cd "$(dirname "$0")" && pwd)
release=${RIG_RELEASE:-bookworm}
arch=${RIG_ARCH:-amd64}
case $arch in
  amd64) console=ttyS0 ;;
  arm64) console=ttyAMA0 ;;
  *) echo "rig: RIG_ARCH must be amd64 or arm64, not $arch" >&2; exit 64 ;;
esac
[[ $(id -u) -eq 0 ]] || { echo "rig: a clean root needs root (mmdebstrap, chroot)" >&2; exit 69; }
for tool in mmdebstrap unshare chroot; do
  command -v $tool >/dev/null || { echo "rig: $tool not found (apt-get install mmdebstrap)" >&2; exit 69; }
done
debs=("$source"/pinpadd_*_"$arch".deb "$source"/pinpadctl_*_"$arch".deb)
for deb in "${debs[@]}"; do
  [[ -f $deb ]] || { echo "rig: no $deb (make deb${arch/amd64/})" >&2; exit 69; }
done
# The cached tarball (for arm64 also the qemu-user-static binfmt handler, so the
# setup's apt-get runs in the chroot).
tarball=$("$here/clean-tarball.sh" "$release" "$arch" "$source")
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
cp "${debs[@]}" "$root/root/"

# The case's setup (apt-get install ./pinpadd_*.deb ./pinpadctl_*.deb) in a chroot, in a private mount
# namespace: its mounts vanish with it, whatever happens.
cp "$scratch/case.sh" "$root/root/rig-case-setup.sh"
unshare -m --propagation private bash -euo pipefail -c '
  root=$1
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive RIG_SCRATCH="$2" \
    /bin/bash -c "cd /root && exec /bin/bash /root/rig-case-setup.sh setup"
' clean-root "$root" "$scratch"
rm -f "$root/root/rig-case-setup.sh" "$root/etc/resolv.conf"

# The boot. (tmp.mount, Debian 13's tmpfs on /tmp, would hide the scratch share mounted
# under /tmp before switch_root. /etc/.updated and /var/.updated newer than /usr: the
# first boot skips ldconfig, the journal catalogue and the hwdb rebuild, minutes under
# TCG, done by the packages' own scripts already.)
touch "$root/etc/.updated" "$root/var/.updated"
echo "# rig: nothing to mount" >"$root/etc/fstab"
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$root/etc/machine-id"
echo >>"$root/etc/machine-id"
for unit in getty.target serial-getty@$console.service systemd-firstboot.service timers.target \
  apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
  fstrim.timer systemd-tmpfiles-clean.timer systemd-update-utmp.service tmp.mount; do
  ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
mkdir -p "$scratch/lib"
cp "$here/guest.sh" "$scratch/lib/guest.sh"
rig_env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb"
rig_env="$rig_env RIG_SCRATCH=$scratch RIG_LIB=$scratch/lib RIG_BOOT=clean"
mkdir -p "$root/usr/local/sbin"
cat >"$root/usr/local/sbin/rig-case" <<'EOT'
#!/bin/bash
# rig-case.service: the case, then the result file and an immediate poweroff.
cd /root || exit 1
/bin/bash "$RIG_SCRATCH/case.sh"
rc=$?
echo $rc >"$RIG_SCRATCH/result"
dmesg >"$RIG_SCRATCH/kernel.log" 2>/dev/null  # for run.sh's crash check
echo "rig: $(cut -d' ' -f1 /proc/uptime)s case finished: $rc"
sync
systemctl --force --force poweroff
EOT
chmod 0755 "$root/usr/local/sbin/rig-case"
{
  cat <<'EOT'
[Unit]
Description=rig: the system-test case
After=basic.target

[Service]
Type=exec
ExecStart=/usr/local/sbin/rig-case
EOT
  for v in $rig_env; do echo "Environment=\"$v\""; done
  cat <<'EOT'
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/@CONSOLE@
TTYReset=no
TTYVHangup=no
EOT
} | sed "s/@CONSOLE@/$console/" >"$root/etc/systemd/system/rig-case.service"
cat >"$root/etc/systemd/system/rig.target" <<'EOT'
[Unit]
Description=rig: basic system plus the case
Requires=basic.target
Wants=rig-case.service
After=basic.target
AllowIsolate=yes
EOT
ln -sf /etc/systemd/system/rig.target "$root/etc/systemd/system/default.target"

# The disk: what the root holds, plus room for the case (journal, logs, access.db).
size_mib=$(($(du -sm "$root" | cut -f1) + 512))
rm -f "$image"
mke2fs -q -t ext4 -L rig-root -E nodiscard -d "$root" "$image" "${size_mib}M"
rm -rf "$root"
