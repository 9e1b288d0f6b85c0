# Sourced by the initramfs /init (busybox sh, PID 1) for cases with `# rig-boot: clean`,
# once the modules are loaded. The root is the clean Debian 12 that lib/clean-root.sh
# prepared on the host (QEMU share "root", writable): mount it and the scratch share,
# then switch_root into its own systemd. Never returns.
# cache=mmap, not none: with cache=none 9p maps files read-only, so a shared writable
# mmap (SQLite's WAL index beside serve's access.db) fails as it never would on a
# device's ext4; mmap mode caches only what is mapped.
mount -t 9p -o trans=virtio,version=9p2000.L,rw,cache=mmap,msize=262144 root /newroot ||
  { echo "rig: 9p root mount failed"; poweroff -f; }
mkdir -p "/newroot$scratch"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 scratch "/newroot$scratch" ||
  { echo "rig: 9p scratch mount failed"; poweroff -f; }
umount /host 2>/dev/null
stamp "switching root to the clean root's systemd"
exec switch_root /newroot /lib/systemd/systemd
