# Sourced by the initramfs /init (busybox sh, PID 1) for cases with `# rig-boot: clean`,
# once the modules are loaded. The root is the clean Debian that lib/clean-root.sh
# prepared on the host, an ext4 image on the guest's virtio disk (/dev/vda): mount it
# and the scratch share, then switch_root into its own systemd. Never returns.
mount -t ext4 -o rw /dev/vda /newroot || { echo "rig: mounting the clean root (/dev/vda) failed"; poweroff -f; }
mkdir -p "/newroot$scratch"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 scratch "/newroot$scratch" ||
  { echo "rig: 9p scratch mount failed"; poweroff -f; }
umount /host 2>/dev/null
stamp "switching root to the clean root's systemd"
exec switch_root /newroot /lib/systemd/systemd
