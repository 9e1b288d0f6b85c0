#!/bin/bash
# Builds the rig's initramfs: busybox-static, the modules below with their
# `modinfo -F depends` closure (in load order), and lib/init.sh as /init.
# Usage: build-initramfs.sh KERNEL_VERSION OUTPUT.cpio.gz
# For another kernel than the host's (the arm64 one): RIG_MODULES_BASE=DIR (its
# lib/modules/VERSION, depmod'ed), RIG_BUSYBOX=that architecture's busybox-static,
# RIG_MODULES=the modules wanted; .ko.xz modules are unpacked (busybox insmod reads .ko).
set -euo pipefail
kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
# virtio_pci before 9pnet_virtio, or the 9p mount fails with "no channels available".
# virtio_blk, crc32c and ext4: a clean case's root is an ext4 disk image (ext4 asks the
# crypto API for crc32c at mount, and the initramfs has no modprobe to load it then).
wanted=${RIG_MODULES:-virtio_pci 9pnet_virtio 9p overlay virtio_blk crc32c_generic ext4 evdev uinput xhci-pci usbhid hid-generic bochs uhid hid-cp2112}
base=()
[[ -n ${RIG_MODULES_BASE:-} ]] && base=(-b "$RIG_MODULES_BASE")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,sbin,proc,sys,dev,host,newroot,ovl,modules,etc}
cp "${RIG_BUSYBOX:-/bin/busybox}" "$work/bin/busybox"
cp "$here/init.sh" "$work/init"
chmod +x "$work/init"

# Depth-first: a module's dependencies are loaded before it.
declare -A seen=()
order=()
visit() {
  local name=${1//-/_}
  [[ -n ${seen[$name]:-} ]] && return
  seen[$name]=1
  local file deps dep
  file=$(modinfo "${base[@]}" -k "$kver" -F filename "$1") ||
    { echo "rig: no module $1 in $kver: left out" >&2; return; }
  [[ $file == "(builtin)" || $file == *builtin* ]] && return
  deps=$(modinfo "${base[@]}" -k "$kver" -F depends "$1")
  for dep in ${deps//,/ }; do visit "$dep"; done
  [[ ${#base[@]} -eq 0 || $file == "$RIG_MODULES_BASE"/* ]] || file=$RIG_MODULES_BASE$file
  case $file in
    *.ko.xz) xz -dc "$file" >"$work/modules/$(basename "$file" .xz)" ;;
    *) cp "$file" "$work/modules/" ;;
  esac
  order+=("$(basename "$file" .xz)")
}
for m in $wanted; do visit "$m"; done
printf '%s\n' "${order[@]}" >"$work/modules/order"

(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
