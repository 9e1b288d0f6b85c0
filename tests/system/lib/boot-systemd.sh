# Sourced by the initramfs /init (busybox sh, PID 1) for cases with `# rig-boot: systemd`,
# once /newroot (the host's root under a tmpfs overlay) has proc, sys, dev and the
# scratch share mounted. Never returns: it ends in switch_root or poweroff.
#  1. `case.sh setup` runs in a chroot of /newroot, as in chroot mode (install the
#     project, enable units, write drop-ins ...);
#  2. rig.target (basic.target + rig-case.service) becomes the default target;
#     rig-case.service runs `case.sh` with the usual RIG_* environment and its output on
#     /dev/ttyS0, writes the exit status to $RIG_SCRATCH/result and powers off;
#  3. switch_root into /lib/systemd/systemd (the host's systemd 252).
rig_env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb"
rig_env="$rig_env RIG_SCRATCH=$scratch RIG_SOURCE=$source RIG_LIB=$source/tests/system/lib"
rig_env="$rig_env RIG_PROBE=$scratch/evdev-probe RIG_BOOT=systemd"
rig_give_up() {
  echo "${1:-1}" >"/newroot$scratch/result"
  stamp "case finished before boot: $(cat "/newroot$scratch/result")"
  sync
  poweroff -f
}
# shellcheck disable=SC2086
chroot /newroot /usr/bin/env -i $rig_env SYSTEMD_IGNORE_CHROOT=1 \
  /bin/bash -c 'cd "$RIG_SOURCE" && exec /bin/bash "$RIG_SCRATCH/case.sh" setup' </dev/console ||
  rig_give_up $?
stamp "case set up"

# The host's fstab must not mount the host's disks in the guest.
echo "# rig: nothing to mount" >/newroot/etc/fstab
# Boot steps no case needs, slow under TCG (each is a process or a mount the guest's one
# CPU emulates). The journal stays in /run (no flush to /var/log/journal).
for unit in apparmor.service keyboard-setup.service systemd-binfmt.service \
  proc-sys-fs-binfmt_misc.automount proc-sys-fs-binfmt_misc.mount systemd-update-utmp.service \
  modprobe@configfs.service modprobe@dm_mod.service modprobe@efi_pstore.service \
  modprobe@fuse.service modprobe@loop.service kmod-static-nodes.service \
  systemd-modules-load.service systemd-remount-fs.service systemd-journal-flush.service \
  dev-hugepages.mount dev-mqueue.mount sys-fs-fuse-connections.mount \
  sys-kernel-config.mount sys-kernel-debug.mount sys-kernel-tracing.mount \
  apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
  man-db.timer systemd-tmpfiles-clean.timer; do
  ln -sf /dev/null "/newroot/etc/systemd/system/$unit"
done
cat >/newroot/usr/local/sbin/rig-case <<EOT
#!/bin/bash
# rig-case.service: the case, then the result file and an immediate poweroff.
cd "\$RIG_SOURCE" || exit 1
/bin/bash "\$RIG_SCRATCH/case.sh"
rc=\$?
echo \$rc >"\$RIG_SCRATCH/result"
dmesg >"\$RIG_SCRATCH/kernel.log" 2>/dev/null  # for run.sh's crash check
echo "rig: \$(cut -d' ' -f1 /proc/uptime)s case finished: \$rc"
sync
systemctl --force --force poweroff
EOT
chmod 0755 /newroot/usr/local/sbin/rig-case
cat >/newroot/etc/systemd/system/rig-case.service <<EOT
[Unit]
Description=rig: the system-test case
After=basic.target

[Service]
Type=exec
ExecStart=/usr/local/sbin/rig-case
$(for v in $rig_env; do echo "Environment=\"$v\""; done)
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no
EOT
cat >/newroot/etc/systemd/system/rig.target <<EOT
[Unit]
Description=rig: basic system plus the case
Requires=basic.target
Wants=rig-case.service
After=basic.target
AllowIsolate=yes
EOT
ln -sf /etc/systemd/system/rig.target /newroot/etc/systemd/system/default.target

# systemd mounts its own /run, /tmp stays on the overlay; proc, sys and dev are reused.
umount /newroot/dev/pts /newroot/run /newroot/tmp 2>/dev/null
stamp "switching root to systemd"
exec switch_root /newroot /lib/systemd/systemd
