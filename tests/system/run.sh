#!/bin/bash
# pinpadd's system-test rig: boots the host's Debian kernel under QEMU (TCG) with a tiny
# initramfs, shares the host's root read-only (plus a tmpfs overlay) and a writable
# scratch folder, gives the guest a USB keyboard on xHCI, and runs a case:
#
#   tests/system/run.sh NAME...      run tests/system/cases/NAME.sh in the guest (as root,
#                                    chrooted into the host's root, cwd = this worktree)
#                                    while tests/system/cases/NAME.host.py, if present,
#                                    drives QEMU over QMP from the host
#   tests/system/run.sh all          every case (all-tree: those that run the worktree's
#                                    build; all-clean: those that boot a clean root)
#   tests/system/run.sh --list [SEL] the case names (of selection SEL: all, all-tree, ...)
#
# Environment: RIG_TIMEOUT (seconds per case, default 300), RIG_LOGLEVEL (the guest
# console's, default 3: 7 shows every kernel line), RIG_KEEP=1 keeps the run
# folder (console.log, scratch/), RIG_NO_INSTALL=1 skips installing missing packages,
# RIG_PROBE=FILE uses that evdev-probe (lib/build-probe.sh) instead of building it,
# RIG_BIN=DIR (a folder of the worktree, default .build/debug) holds the pinpadd and
# pinpadctl that the worktree's cases run and install (make test: the release build).
# A case may add QEMU arguments with lines `# rig-qemu: -device usb-tablet`, and boot the
# host's systemd as PID 1 instead of running in a chroot with `# rig-boot: systemd`
# (lib/boot-systemd.sh: the case runs once with argument `setup` before the boot), or
# a clean Debian 12 root with `# rig-boot: clean` (lib/clean-root.sh: made with
# mmdebstrap, cached; the case's `setup` runs in a chroot of it on the host);
# `# rig-release: trixie` makes that root Debian 13, and `# rig-arch: arm64` makes it
# arm64, booted with trixie's arm64 kernel under qemu-system-aarch64 -M virt (the kernel
# and busybox come from the Debian 13 build root, tools/debian13-root.sh).
# `# rig-same-as: NAME` runs case NAME's scripts (its .sh and .host.py) with this
# file's rig lines, which come first; `# rig-timeout: SECONDS` overrides RIG_TIMEOUT;
# `# rig-kernel: ARG...` adds kernel command-line arguments.
# `# rig-keyboards: N` (2..4) gives N USB keyboards kbdI on xHCI port I instead of one,
# each bound to a display head of its own (bochs-display headI), so QMP
# `input-send-event` with device=headI reaches keyboard I only (lib/qmp.py keyboard()).
# Exit status: 0 when every case's guest script exited 0 and its host driver too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
timeout=${RIG_TIMEOUT:-300}

cases=()
list=no
for arg in "$@"; do
  case $arg in
    --list) list=yes ;;
    # A case with `# rig-not-in-all: REASON` runs only when named.
    # all-tree: those of all that run the worktree's build; all-clean: those that
    # install the packages on a clean root (`# rig-boot: clean`). `make test` runs the two
    # side by side (tools/test-all.sh).
    all | all-tree | all-clean) for f in "$here"/cases/*.sh; do
      if grep -q '^# rig-not-in-all:' "$f"; then
        [[ $list == yes ]] || echo "rig: not in all: $(basename "$f" .sh) ($(sed -n 's/^# rig-not-in-all: *//p' "$f"))"
      elif [[ $arg == all ]] || { grep -q '^# rig-boot: *clean' "$f" && [[ $arg == all-clean ]]; } ||
        { ! grep -q '^# rig-boot: *clean' "$f" && [[ $arg == all-tree ]]; }; then
        cases+=("$(basename "$f" .sh)")
      fi
    done ;;
    -*) echo "usage: $0 NAME... | all | all-tree | all-clean | --list" >&2; exit 64 ;;
    *) cases+=("$arg") ;;
  esac
done
if [[ $list == yes ]]; then
  if [[ ${#cases[@]} -eq 0 ]]; then
    for f in "$here"/cases/*.sh; do basename "$f" .sh; done
  else
    printf '%s\n' "${cases[@]}"
  fi
  exit 0
fi
[[ ${#cases[@]} -gt 0 ]] || { echo "usage: $0 NAME... | all | all-tree | all-clean | --list" >&2; exit 64; }
for name in "${cases[@]}"; do
  [[ -f $here/cases/$name.sh ]] || { echo "no case $here/cases/$name.sh" >&2; exit 64; }
done

ensure_packages() {
  local missing=() p
  local arm64=() c
  for c in "${cases[@]}"; do
    grep -q '^# rig-arch: arm64' "$here/cases/$c.sh" && arm64=(qemu-system-arm qemu-user-static xz-utils)
  done
  for p in qemu-system-x86 linux-image-amd64 busybox-static evemu-tools cpio python3 mmdebstrap "${arm64[@]}"; do
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
# Two runs side by side (tools/test-all.sh) build it once: the second waits on the lock.
exec 8>"$initramfs.lock"
flock 8
if [[ ! -f $initramfs || $here/lib/build-initramfs.sh -nt $initramfs || $here/lib/init.sh -nt $initramfs ]]; then
  stamp "building initramfs for $kver"
  "$here/lib/build-initramfs.sh" "$kver" "$initramfs"
fi
exec 8>&-
if [[ -n ${RIG_PROBE:-} && -x ${RIG_PROBE:-} ]]; then
  probe=$RIG_PROBE  # built beforehand (tools/test-all.sh), so no swift build waits here
else
  stamp "building evdev-probe"
  probe=$("$here/lib/build-probe.sh" "$cache/evdev-probe")
fi
bin_dir=${RIG_BIN:-.build/debug}

# The kernel, initramfs and QEMU for an arm64 case (`# rig-arch: arm64`): trixie's
# arm64 kernel package and busybox-static, downloaded into the Debian 13 build root by
# tools/debian13-root.sh, unpacked once under .build/system-tests/arm64.
arm64_kernel() {
  local dir=$cache/arm64 debs=$root/.build/debian13/root/opt/debs
  if [[ ! -f $dir/complete ]]; then
    "$root/tools/debian13-root.sh" >&2
    local image busybox
    image=$(ls "$debs"/linux-image-*_arm64.deb 2>/dev/null | head -1)
    busybox=$(ls "$debs"/busybox-static_*_arm64.deb 2>/dev/null | head -1)
    if [[ -z $busybox ]]; then
      "$root/tools/debian13.sh" sh -c 'cd /opt/debs && apt-get download -q busybox-static:arm64' >&2
      busybox=$(ls "$debs"/busybox-static_*_arm64.deb | head -1)
    fi
    [[ -n $image ]] || { echo "rig: no arm64 kernel package in $debs" >&2; return 1; }
    rm -rf "$dir" && mkdir -p "$dir"
    dpkg-deb -x "$image" "$dir/kernel"
    dpkg-deb -x "$busybox" "$dir/busybox"
    local v
    v=$(ls "$dir/kernel/lib/modules" 2>/dev/null || ls "$dir/kernel/usr/lib/modules")
    [[ -d $dir/kernel/lib/modules ]] || { mkdir -p "$dir/kernel/lib" && ln -s ../usr/lib/modules "$dir/kernel/lib/modules"; }
    depmod -b "$dir/kernel" "$v"
    echo "$v" >"$dir/complete"
  fi
  local v
  v=$(cat "$dir/complete")
  arm64_vmlinuz=$dir/kernel/boot/vmlinuz-$v
  arm64_initramfs=$cache/initramfs-arm64-$v.cpio.gz
  if [[ ! -f $arm64_initramfs || $here/lib/build-initramfs.sh -nt $arm64_initramfs || $here/lib/init.sh -nt $arm64_initramfs ]]; then
    stamp "building the arm64 initramfs for $v" >&2
    RIG_MODULES_BASE=$dir/kernel RIG_BUSYBOX=$dir/busybox/usr/bin/busybox \
      RIG_MODULES="virtio_pci 9pnet_virtio 9p overlay virtio_blk crc32c_generic ext4 evdev xhci-pci usbhid hid-generic" \
      "$here/lib/build-initramfs.sh" "$v" "$arm64_initramfs"
  fi
}

run_case() {
  local name=$1 run scratch qemu_pid driver_pid="" rc driver_rc=0 extra=()
  # Why the case failed (crash, case or rig) for the retry rule below; a return before
  # QEMU starts is the rig's (a clean root or an arm64 kernel it could not prepare).
  failure_kind=rig failure_reason="the rig could not prepare the case"
  run=$(mktemp -d /tmp/pinpadd-rig.XXXXXX)
  scratch=$run/scratch
  mkdir -m 0777 "$scratch"
  # `# rig-same-as: NAME`: NAME's scripts with this case's rig lines first.
  local body=$name lines
  body=$(sed -n 's/^# rig-same-as: *\([a-z0-9-]*\).*/\1/p' "$here/cases/$name.sh" | head -1)
  body=${body:-$name}
  lines=$(cat "$here/cases/$name.sh" "$here/cases/$body.sh")
  cp "$here/cases/$body.sh" "$scratch/case.sh"
  cp "$probe" "$scratch/evdev-probe"
  echo "$bin_dir" >"$scratch/bin-dir"
  # sigterm-stress's number of rounds.
  [[ -n ${RIG_STRESS_ROUNDS:-} ]] && echo "$RIG_STRESS_ROUNDS" >"$scratch/stress-rounds"
  # shellcheck disable=SC2207
  extra=($(sed -n 's/^# rig-qemu: //p' <<<"$lines"))
  local boot keyboards i kbd=() release arch case_timeout
  boot=$(sed -n 's/^# rig-boot: *\([a-z]*\).*/\1/p' <<<"$lines" | head -1)
  keyboards=$(sed -n 's/^# rig-keyboards: *\([0-9]*\).*/\1/p' <<<"$lines" | head -1)
  release=$(sed -n 's/^# rig-release: *\([a-z]*\).*/\1/p' <<<"$lines" | head -1)
  arch=$(sed -n 's/^# rig-arch: *\([a-z0-9]*\).*/\1/p' <<<"$lines" | head -1)
  case_timeout=$(sed -n 's/^# rig-timeout: *\([0-9]*\).*/\1/p' <<<"$lines" | head -1)
  case_timeout=${case_timeout:-$timeout}
  # `# rig-kernel: ARG...`: more kernel command-line arguments (drm: no fbdev emulation).
  local kernel_args
  kernel_args=$(sed -n 's/^# rig-kernel: *//p' <<<"$lines" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ *$//')
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
    if ! "${sudo[@]}" env RIG_RELEASE="${release:-bookworm}" RIG_ARCH="${arch:-amd64}" \
      "$here/lib/clean-root.sh" "$run/root.ext4" "$scratch" "$root" >"$run/setup.log" 2>&1; then
      cat "$run/setup.log"
      stamp "case $name: clean root setup failed"
      "${sudo[@]}" rm -rf "$run"
      return 1
    fi
    tail -5 "$run/setup.log"
    echo "clean_root_setup=$((SECONDS - t0))" >>"$scratch/timings"
    # The guest's only disk, /dev/vda. cache=unsafe: the image is thrown away after the
    # case, so the host need not honour the guest's flushes.
    extra+=(-drive "file=$run/root.ext4,format=raw,if=virtio,cache=unsafe")
  fi
  local qemu=(qemu-system-x86_64 -accel tcg -m 1024 -smp 1) vmlinuz=/boot/vmlinuz-$kver
  local rd=$initramfs console=ttyS0
  if [[ $arch == arm64 ]]; then
    # trixie's arm64 kernel on QEMU's virt board (TCG: each guest instruction emulated).
    arm64_kernel || { rm -rf "$run"; return 1; }
    qemu=(qemu-system-aarch64 -M virt -cpu cortex-a72 -accel tcg,thread=multi -smp 2 -m 1024)
    vmlinuz=$arm64_vmlinuz rd=$arm64_initramfs console=ttyAMA0
  fi
  # -trace hid_kbd_queue_full: QEMU's USB keyboard holds 16 scancodes and drops what
  # comes while they wait for a guest starved of CPU; the trace says it happened.
  # print_fatal_signals=1: every death by a core-dumping signal is logged (crash_lines).
  # watchdog_thresh=60: a soft lockup is a CPU held 120 s, not 20: a TCG guest on a
  # loaded 2-core host has been seen starved for 26 s (its clock runs on, its CPU not).
  # The guest stands for a device with a CPU of its own: its emulator goes before the
  # builds beside it (make test's other lanes). Starved, a TCG guest's clock runs on
  # while its CPU does not, and keys typed a moment apart reach it seconds apart: a card
  # reader's number is then cut in two by its 1 s read timeout (card-pin once failed so).
  local prio=()
  [[ $(id -u) == 0 ]] && prio=(nice -n -5)
  stamp "case $name: booting (run folder $run)"
  "${prio[@]}" "${qemu[@]}" -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$rd" \
    -append "console=$console loglevel=${RIG_LOGLEVEL:-3} print_fatal_signals=1 watchdog_thresh=60 panic=-1 no_timer_check rig.scratch=$scratch rig.source=$root${boot:+ rig.boot=$boot}${kernel_args:+ $kernel_args}" \
    -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$scratch,mount_tag=scratch,security_model=none,multidevs=remap" \
    -device qemu-xhci,id=xhci "${kbd[@]}" \
    -qmp "unix:$run/qmp.sock,server=on,wait=off" \
    -trace "enable=hid_kbd_queue_full,file=$run/qemu-trace.log" \
    "${extra[@]}" </dev/null > >(tee "$run/console.log") 2>&1 &
  qemu_pid=$!
  local driver=$here/cases/$name.host.py
  [[ -f $driver ]] || driver=$here/cases/$body.host.py
  if [[ -f $driver ]]; then
    # Its exit status goes to a file: after a long case bash's `wait` has been seen to
    # give 127 (no such child) for a driver that had exited 0.
    (
      RIG_SCRATCH=$scratch RIG_QMP=$run/qmp.sock RIG_TIMEOUT=$case_timeout PYTHONPATH=$here/lib \
        python3 "$driver" 2>&1 | tee "$run/driver.log"
      echo "${PIPESTATUS[0]}" >"$run/driver.rc"
    ) &
    driver_pid=$!
  fi
  local waited=0 st=() qemu_ticks=0
  while kill -0 "$qemu_pid" 2>/dev/null; do
    # QEMU's CPU time (utime + stime, in clock ticks), the last sample before it ends:
    # what a case costs the host's cores, whatever else runs beside it.
    read -r -a st <"/proc/$qemu_pid/stat" 2>/dev/null && qemu_ticks=$((st[13] + st[14]))
    if [[ $waited -ge $((case_timeout * 10)) ]]; then
      stamp "case $name: timed out after ${case_timeout}s, stopping QEMU"
      kill "$qemu_pid" 2>/dev/null || true
      break
    fi
    # A guest kernel stuck in a soft lockup never gets out (seen once in door-gpio,
    # 6.1's hid-cp2112 as the chip came back): stop now, not at the timeout.
    if ((waited % 50 == 49)) && grep -q "BUG: soft lockup" "$run/console.log" 2>/dev/null; then
      stamp "case $name: the guest kernel reports a soft lockup, stopping QEMU"
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
    # The python process, not its subshell, so the subshell still writes the status.
    pkill -P "$driver_pid" 2>/dev/null || true
    wait "$driver_pid" 2>/dev/null || true
    driver_rc=$(cat "$run/driver.rc" 2>/dev/null || echo 1)
  fi
  rc=$(cat "$scratch/result" 2>/dev/null || echo 1)
  echo "qemu_cpu_s=$((qemu_ticks / $(getconf CLK_TCK)))" >>"$scratch/timings"
  [[ -f $scratch/timings ]] && sed "s/^/rig: timing $name /" "$scratch/timings"
  stamp "case $name: guest exit $rc, host driver exit $driver_rc"
  failure_kind="" failure_reason=""
  local crashes
  crashes=$(crash_lines "$name" "$run" "$scratch")
  local dropped=0
  [[ -f $run/qemu-trace.log ]] && dropped=$(grep -c hid_kbd_queue_full "$run/qemu-trace.log")
  ((dropped > 0)) && stamp "case $name: QEMU dropped $dropped keyboard scancodes (its USB keyboard's queue was full)"
  if [[ -s $run/known-kernel-bugs ]]; then
    stamp "case $name: the guest's kernel hit a known bug of its own (not a failure):"
    sort -u "$run/known-kernel-bugs" | sed 's/^/rig:   /'
  fi
  if [[ -n $crashes ]]; then
    failure_kind=crash failure_reason=$(head -1 <<<"$crashes")
    stamp "case $name: CRASH (never retried):"
    sed 's/^/rig:   /' <<<"$crashes"
  elif [[ $rc != 0 || $driver_rc != 0 ]]; then
    failure_kind=case failure_reason=$(grep -m1 -E "guest: .*FAIL: |timed out|host: driver failed" \
      "$run/console.log" "$run/driver.log" 2>/dev/null | sed 's/^[^:]*://' || true)
    # Each boot says so before the case starts: "root ready" (chroot, systemd) or
    # "switching root" (a clean root's systemd).
    if ! grep -qE "^rig: [0-9.]+s (root ready|switching root)" "$run/console.log" 2>/dev/null; then
      failure_kind=rig failure_reason="the guest did not boot"
    elif ((dropped > 0)); then
      # Typed keys that never reached the guest: the rig lost input, not pinpadd.
      failure_kind=rig failure_reason="QEMU dropped $dropped typed scancodes (keyboard queue full)"
    elif [[ $rc == 0 ]] && grep -qE "driver failed: .*(QMPError|ConnectionRefused|ConnectionReset|BrokenPipe|FileNotFound)" \
      "$run/driver.log" 2>/dev/null; then
      failure_kind=rig failure_reason="the host driver lost QEMU's QMP socket"
    fi
    failure_reason=${failure_reason:-guest exit $rc, host driver exit $driver_rc}
  fi
  if [[ ${RIG_KEEP:-} == 1 ]]; then
    stamp "kept $run"
  elif [[ -e $run/root.ext4 && $(id -u) -ne 0 ]]; then
    sudo rm -rf "$run"
  else
    rm -rf "$run"
  fi
  # A crash fails the case even when its own checks passed (a daemon that died in the
  # background, a kernel that oopsed).
  [[ $rc == 0 && $driver_rc == 0 && -z $crashes ]]
}

# crash_lines NAME RUN SCRATCH: the lines that show a crash in case NAME, none when
# there was none (lib/crashes.awk: pinpadd, pinpadctl or the evdev probe killed by a
# signal, a soft lockup, a kernel BUG or oops; the guest saves its kernel log as
# SCRATCH/kernel.log when the case ends, and the console has what reached it, should
# the guest never get that far), or a sanitizer's report in the console. A case's
# `# rig-expected-fatal-signal: COMM SIGNAL` lines name the deaths it causes on purpose.
# The lines of a known kernel bug go to RUN/known-kernel-bugs.
crash_lines() {
  local name=$1 run=$2 scratch=$3 log=$3/kernel.log
  [[ -f $log ]] || log=$run/console.log
  awk -v known="$run/known-kernel-bugs" \
    -v expected="$(sed -n 's/^# rig-expected-fatal-signal: *\([^ ]*\) \([0-9]*\).*/\1:\2/p' "$here/cases/$name.sh" | tr '\n' ' ')" \
    -f "$here/lib/crashes.awk" "$log" 2>/dev/null || true
  grep -h -E "ERROR: (Address|Leak|Thread|UndefinedBehavior)Sanitizer|runtime error: " \
    "$run/console.log" 2>/dev/null | head -n 5 || true
}

# A case is run again only when the rig itself failed (RIG_RETRIES times, default 1):
# the guest did not boot, or the host driver lost QEMU's QMP socket while the guest
# passed. A case whose own checks failed is not run again, and one that crashed
# (crash_lines) never is. Every retry is stamped with its reason when it happens and
# listed in the summary (`rig: retry: NAME: REASON`), which tools/test-all.sh repeats
# at the end of make test.
failed=()
retried=()
for name in "${cases[@]}"; do
  tries=0
  until run_case "$name"; do
    tries=$((tries + 1))
    if [[ $failure_kind != rig || $tries -gt ${RIG_RETRIES:-1} ]]; then
      failed+=("$name ($failure_kind: $failure_reason)")
      break
    fi
    stamp "RETRY: case $name: $failure_reason; running it again (retry $tries)"
    retried+=("$name: $failure_reason")
  done
done
echo "rig: retries: ${#retried[@]}"
for r in "${retried[@]}"; do echo "rig: retry: $r"; done
echo "system: $((${#cases[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
if [[ ${#failed[@]} -gt 0 ]]; then
  for f in "${failed[@]}"; do echo "rig: FAILED: $f"; done
  exit 1
fi
