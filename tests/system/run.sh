#!/bin/bash
# pinpadd's system-test rig: boots the host's Debian kernel under QEMU (TCG) with a tiny
# initramfs, shares the host's root read-only (plus a tmpfs overlay) and a writable
# scratch folder, gives the guest a USB keyboard on xHCI, and runs a case:
#
#   tests/system/run.sh NAME...      run tests/system/cases/NAME.sh in the guest (as root,
#                                    chrooted into the host's root, cwd = this worktree)
#                                    while tests/system/cases/NAME.host.py, if present,
#                                    drives QEMU over QMP from the host
#   tests/system/run.sh all          every case
#   tests/system/run.sh --list       the case names
#
# Environment: RIG_TIMEOUT (seconds per case, default 300), RIG_KEEP=1 keeps the run
# folder (console.log, scratch/), RIG_NO_INSTALL=1 skips installing missing packages.
# A case may add QEMU arguments with lines `# rig-qemu: -device usb-tablet`, and boot the
# host's systemd as PID 1 instead of running in a chroot with `# rig-boot: systemd`
# (lib/boot-systemd.sh: the case runs once with argument `setup` before the boot), or
# a clean Debian 12 root with `# rig-boot: clean` (lib/clean-root.sh: made with
# mmdebstrap, cached; the case's `setup` runs in a chroot of it on the host).
# `# rig-keyboards: N` (2..4) gives N USB keyboards kbdI on xHCI port I instead of one,
# each bound to a display head of its own (bochs-display headI), so QMP
# `input-send-event` with device=headI reaches keyboard I only (lib/qmp.py keyboard()).
# Exit status: 0 when every case's guest script exited 0 and its host driver too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
timeout=${RIG_TIMEOUT:-300}

cases=()
for arg in "$@"; do
  case $arg in
    --list) for f in "$here"/cases/*.sh; do basename "$f" .sh; done; exit 0 ;;
    all) for f in "$here"/cases/*.sh; do cases+=("$(basename "$f" .sh)"); done ;;
    -*) echo "usage: $0 NAME... | all | --list" >&2; exit 64 ;;
    *) cases+=("$arg") ;;
  esac
done
[[ ${#cases[@]} -gt 0 ]] || { echo "usage: $0 NAME... | all | --list" >&2; exit 64; }
for name in "${cases[@]}"; do
  [[ -f $here/cases/$name.sh ]] || { echo "no case $here/cases/$name.sh" >&2; exit 64; }
done

ensure_packages() {
  local missing=() p
  for p in qemu-system-x86 linux-image-amd64 busybox-static evemu-tools cpio python3 mmdebstrap; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  if [[ ${RIG_NO_INSTALL:-} == 1 ]]; then
    echo "rig: missing packages: ${missing[*]}" >&2
    exit 69
  fi
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get install -y "${missing[@]}"
}

stamp() { echo "rig: host $(date +%T.%N | cut -c1-12) $*"; }

ensure_packages
kver=""
for kernel in $(ls -v /boot/vmlinuz-* 2>/dev/null); do
  v=${kernel#/boot/vmlinuz-}
  [[ -d /lib/modules/$v ]] && kver=$v
done
[[ -n $kver ]] || { echo "rig: no /boot/vmlinuz-* with modules" >&2; exit 69; }

cache=$root/.build/system-tests
mkdir -p "$cache"
initramfs=$cache/initramfs-$kver.cpio.gz
if [[ ! -f $initramfs || $here/lib/build-initramfs.sh -nt $initramfs || $here/lib/init.sh -nt $initramfs ]]; then
  stamp "building initramfs for $kver"
  "$here/lib/build-initramfs.sh" "$kver" "$initramfs"
fi
stamp "building evdev-probe"
probe=$("$here/lib/build-probe.sh" "$cache/evdev-probe")

run_case() {
  local name=$1 run scratch qemu_pid driver_pid="" rc driver_rc=0 extra=()
  run=$(mktemp -d /tmp/pinpadd-rig.XXXXXX)
  scratch=$run/scratch
  mkdir -m 0777 "$scratch"
  cp "$here/cases/$name.sh" "$scratch/case.sh"
  cp "$probe" "$scratch/evdev-probe"
  # shellcheck disable=SC2207
  extra=($(sed -n 's/^# rig-qemu: //p' "$here/cases/$name.sh"))
  local boot keyboards i kbd=()
  boot=$(sed -n 's/^# rig-boot: *\([a-z]*\).*/\1/p' "$here/cases/$name.sh" | head -1)
  keyboards=$(sed -n 's/^# rig-keyboards: *\([0-9]*\).*/\1/p' "$here/cases/$name.sh" | head -1)
  if [[ -z $keyboards ]]; then
    kbd=(-device usb-kbd,id=kbd1,bus=xhci.0)
  elif [[ $keyboards -ge 2 && $keyboards -le 4 ]]; then
    # QEMU routes input-send-event with device=ID to the keyboard bound to that
    # display's head; send-key (no device) then reaches none of them.
    for ((i = 1; i <= keyboards; i++)); do
      kbd+=(-device "bochs-display,id=head$i" -device "usb-kbd,id=kbd$i,bus=xhci.0,port=$i,display=head$i")
    done
  else
    echo "rig: $name: rig-keyboards must be 2..4, not $keyboards" >&2
    return 1
  fi
  if [[ $boot == clean ]]; then
    # A clean Debian 12 root with the package installed (lib/clean-root.sh).
    stamp "case $name: preparing the clean root"
    local t0=$SECONDS
    # It needs root (mmdebstrap, chroot, files owned by root): sudo when not root.
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    if ! "${sudo[@]}" "$here/lib/clean-root.sh" "$run/root" "$scratch" "$root" >"$run/setup.log" 2>&1; then
      cat "$run/setup.log"
      stamp "case $name: clean root setup failed"
      "${sudo[@]}" rm -rf "$run"
      return 1
    fi
    tail -5 "$run/setup.log"
    echo "clean_root_setup=$((SECONDS - t0))" >>"$scratch/timings"
    extra+=(-virtfs "local,path=$run/root,mount_tag=root,security_model=none,multidevs=remap")
  fi
  stamp "case $name: booting (run folder $run)"
  qemu-system-x86_64 -accel tcg -m 1024 -smp 1 -nographic -no-reboot \
    -kernel "/boot/vmlinuz-$kver" -initrd "$initramfs" \
    -append "console=ttyS0 loglevel=3 panic=-1 no_timer_check rig.scratch=$scratch rig.source=$root${boot:+ rig.boot=$boot}" \
    -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$scratch,mount_tag=scratch,security_model=none,multidevs=remap" \
    -device qemu-xhci,id=xhci "${kbd[@]}" \
    -qmp "unix:$run/qmp.sock,server=on,wait=off" \
    "${extra[@]}" </dev/null > >(tee "$run/console.log") 2>&1 &
  qemu_pid=$!
  if [[ -f $here/cases/$name.host.py ]]; then
    RIG_SCRATCH=$scratch RIG_QMP=$run/qmp.sock PYTHONPATH=$here/lib \
      python3 "$here/cases/$name.host.py" &
    driver_pid=$!
  fi
  local waited=0
  while kill -0 "$qemu_pid" 2>/dev/null; do
    if [[ $waited -ge $((timeout * 10)) ]]; then
      stamp "case $name: timed out after ${timeout}s, stopping QEMU"
      kill "$qemu_pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  wait "$qemu_pid" 2>/dev/null || true
  if [[ -n $driver_pid ]]; then
    # The driver sees the result file and stops; give it a moment, then stop it.
    for _ in $(seq 50); do kill -0 "$driver_pid" 2>/dev/null || break; sleep 0.1; done
    kill "$driver_pid" 2>/dev/null || true
    wait "$driver_pid" || driver_rc=$?
  fi
  rc=$(cat "$scratch/result" 2>/dev/null || echo 1)
  [[ -f $scratch/timings ]] && sed "s/^/rig: timing $name /" "$scratch/timings"
  stamp "case $name: guest exit $rc, host driver exit $driver_rc"
  if [[ ${RIG_KEEP:-} == 1 ]]; then
    stamp "kept $run"
  elif [[ -d $run/root && $(id -u) -ne 0 ]]; then
    sudo rm -rf "$run"
  else
    rm -rf "$run"
  fi
  [[ $rc == 0 && $driver_rc == 0 ]]
}

# A case that fails is run once more (RIG_RETRIES, default 1): under TCG on a loaded
# host a guest can miss a timing window. Every retry is named when it happens and
# counted in the summary, so a case that needed one is visible in CI's output; a case
# must still pass to count. RIG_RETRIES=0 shows flakiness as failure.
failed=()
retried=()
for name in "${cases[@]}"; do
  tries=0
  until run_case "$name"; do
    tries=$((tries + 1))
    if [[ $tries -gt ${RIG_RETRIES:-1} ]]; then
      failed+=("$name")
      break
    fi
    stamp "RETRY: case $name failed; running it again (retry $tries)"
    retried+=("$name")
  done
done
echo "rig: retries: ${#retried[@]}${retried[*]:+ (${retried[*]})}"
echo "system: $((${#cases[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "rig: FAILED: ${failed[*]}"
  exit 1
fi
