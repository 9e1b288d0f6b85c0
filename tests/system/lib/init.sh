#!/bin/busybox sh
# /init of the rig's initramfs. Mounts the host's root (9p, read-only) under a tmpfs
# overlay at /newroot so the guest can write anywhere (/etc/udev/rules.d ...), mounts
# proc, sys, dev, run, tmp and the writable scratch share (at the same path as on the
# host), then runs the case script in a chroot and powers off.
# With rig.boot=systemd (a case's `# rig-boot: systemd` line) it instead runs the case
# with argument `setup` in that chroot (to install units, drop-ins ...), writes a short
# rig.target that starts rig-case.service (the case script again, no argument, output on
# /dev/ttyS0), and switch_roots into the host's systemd as PID 1; rig-case.service
# writes the result file and powers off (lib/boot-systemd.sh).
# With rig.boot=clean the root is instead a clean Debian 12 prepared on the host
# (lib/clean-root.sh, lib/boot-clean.sh).
# Kernel command line: rig.scratch=HOST_PATH rig.source=WORKTREE [rig.boot=systemd|clean]
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
stamp() { echo "rig: $(cut -d' ' -f1 /proc/uptime)s $*"; }
stamp "init started"
boot=chroot
for arg in $(cat /proc/cmdline); do
  case $arg in
    rig.scratch=*) scratch=${arg#rig.scratch=} ;;
    rig.source=*) source=${arg#rig.source=} ;;
    rig.boot=*) boot=${arg#rig.boot=} ;;
  esac
done
cmdline=$(cat /proc/cmdline)
for module in $(cat /modules/order); do
  # A module's parameters on the kernel command line (`drm_kms_helper.fbdev_emulation=0`,
  # a case's `# rig-kernel:`), as modprobe passes them: busybox insmod does not.
  name=${module%.ko}
  name=${name//-/_}
  params=""
  for arg in $cmdline; do
    case $arg in "$name".*=*) params="$params ${arg#"$name".}" ;; esac
  done
  # shellcheck disable=SC2086
  insmod "/modules/$module" $params 2>/dev/null || echo "rig: insmod $module failed"
done
stamp "modules loaded"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 host /host || { echo "rig: 9p host mount failed"; poweroff -f; }
# rig.boot=clean: boot the clean root lib/clean-root.sh made instead (lib/boot-clean.sh).
[ "$boot" = clean ] && . "/host$source/tests/system/lib/boot-clean.sh"
mount -t tmpfs tmpfs /ovl
mkdir -p /ovl/upper /ovl/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/ovl/upper,workdir=/ovl/work /newroot ||
  { echo "rig: overlay failed"; poweroff -f; }
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts && mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/run
mount -t tmpfs tmpfs /newroot/tmp
# A worktree under /tmp or /run (a CI clone, say) would be hidden by those fresh
# tmpfs: bind the host's copy back (read-only, as the whole host root is).
case "$source" in
  /tmp/* | /run/*) mkdir -p "/newroot$source" && mount -o bind "/host$source" "/newroot$source" ;;
esac
mkdir -p "/newroot$scratch"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 scratch "/newroot$scratch" ||
  { echo "rig: 9p scratch mount failed"; poweroff -f; }
stamp "root ready"
# Kept in the worktree (not the initramfs) so it can change without a rebuild.
[ "$boot" = systemd ] && . "/newroot$source/tests/system/lib/boot-systemd.sh"
chroot /newroot /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root TERM=dumb SYSTEMD_IGNORE_CHROOT=1 RIG_SCRATCH="$scratch" RIG_SOURCE="$source" \
  RIG_LIB="$source/tests/system/lib" RIG_PROBE="$scratch/evdev-probe" \
  /bin/bash -c 'cd "$RIG_SOURCE" && exec /bin/bash "$RIG_SCRATCH/case.sh"' </dev/console
echo $? >"/newroot$scratch/result"
stamp "case finished: $(cat "/newroot$scratch/result")"
# The kernel's log, for run.sh's crash check (crash_lines).
dmesg >"/newroot$scratch/kernel.log" 2>/dev/null
sync
poweroff -f
