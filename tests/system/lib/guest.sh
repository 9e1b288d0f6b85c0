# Helpers for guest-side case scripts (source "$RIG_LIB/guest.sh").
# The case runs as root in a chroot of the host's root with a tmpfs overlay; the
# worktree is the current directory; $RIG_SCRATCH is shared with the host driver.

set -u
# The folder (in the worktree) of the pinpadd and pinpadctl to run: run.sh's RIG_BIN.
RIG_BIN=$(cat "$RIG_SCRATCH/bin-dir" 2>/dev/null || echo .build/debug)

rig_now() { cut -d' ' -f1 /proc/uptime; }

# pinpadctl's one-shot commands wait 5 s for the daemon by default: under TCG on a
# loaded host a socket activation alone has taken longer.
export PINPADCTL_TIMEOUT=120

# Waiting without processes. Under TCG a fork and exec costs milliseconds of emulated
# work, so a loop of `grep; sleep 0.05` keeps the guest's one CPU busy, slowing what it
# waits for and taking a host core from the guests beside it. These use builtins only.
# rig_nap SECONDS: read's timeout on a FIFO that nobody writes (bash has no builtin sleep).
rig_nap_fifo=/tmp/rig-nap.$$
mkfifo "$rig_nap_fifo" && exec {rig_nap_fd}<>"$rig_nap_fifo" && rm -f "$rig_nap_fifo"
rig_nap() { read -r -t "$1" -u "$rig_nap_fd" _ || true; }

# rig_wait_lines COUNT REGEX FILE [SECONDS]: until COUNT lines of FILE match REGEX
# (bash's =~, an ERE); it reads on from where it was, each line once. Default 60 s.
# Status 1 when they did not come in time.
rig_wait_lines() {
  local want=$1 re=$2 file=$3 deadline=$((SECONDS + ${4:-60})) n=0 line part="" fd
  until [ -e "$file" ]; do
    ((SECONDS < deadline)) || return 1
    rig_nap 0.05
  done
  exec {fd}<"$file"
  while :; do
    while IFS= read -r line <&"$fd"; do
      line=$part$line part=""
      [[ $line =~ $re ]] && n=$((n + 1))
      ((n >= want)) && break
    done
    if ((n >= want)); then
      exec {fd}<&-
      return 0
    fi
    part=$part$line # a line not ended yet: the rest comes with the next read
    if ((SECONDS >= deadline)); then
      exec {fd}<&-
      return 1
    fi
    rig_nap 0.05
  done
}
rig_log() { echo "guest: $(rig_now)s $*"; }
rig_fail() { rig_log "FAIL: $*"; exit 1; }

# rig_scrubbed [FILE...]: the lines (of standard input without FILEs) less what holds
# digits by chance rather than from a code, for the checks that no PIN reaches a log:
# attempt ids and other 128-bit ids (32 random hex digits: one in about 2 000 holds a
# given 4-digit PIN), process and user numbers ("pid 1357") and replica generations (a
# millisecond clock: "generation 1796646554982").
rig_scrubbed() { sed -E 's/\b[0-9a-f]{32}\b/ID/g; s/\b(pid|uid|gid|generation) [0-9]+//g' "$@"; }

# rig_measure NAME START: records "NAME=seconds" in $RIG_SCRATCH/timings.
rig_measure() {
  local elapsed
  elapsed=$(awk -v a="$2" -v b="$(rig_now)" 'BEGIN { printf "%.2f", b - a }')
  echo "$1=$elapsed" >>"$RIG_SCRATCH/timings"
  rig_log "$1 took ${elapsed}s"
}

# Starts systemd-udevd, waits until it answers, triggers and settles. Only the input
# subsystem is triggered (all of them take 10 s more under TCG); RIG_TRIGGER_ALL=1 for all.
rig_start_udevd() {
  local start
  start=$(rig_now)
  /lib/systemd/systemd-udevd --daemon || rig_fail "udevd did not start"
  local tries=0
  until udevadm control --ping 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -gt 300 ] && rig_fail "udevd never answered"
    rig_nap 0.1
  done
  rig_measure udevd_ready "$start"
  start=$(rig_now)
  if [ "${RIG_TRIGGER_ALL:-}" = 1 ]; then
    udevadm trigger --action=add
  else
    udevadm trigger --action=add --subsystem-match=input
  fi
  udevadm settle --timeout=60 || rig_fail "udevadm settle timed out"
  rig_measure udev_trigger_settle "$start"
}

# Installs the project's udev rules into the (overlay) /etc and reloads udevd.
rig_install_rules() {
  cp udev-rules/*.rules /etc/udev/rules.d/
  udevadm control --reload 2>/dev/null || true
}

# rig_signal NAME: tells the host driver NAME happened.
rig_signal() { : >"$RIG_SCRATCH/guest-$1"; }

# rig_wait NAME [SECONDS]: waits for the host driver's signal NAME.
rig_wait() {
  local deadline=$((SECONDS + ${2:-60}))
  until [ -e "$RIG_SCRATCH/host-$1" ]; do
    ((SECONDS < deadline)) || rig_fail "host never signalled $1"
    rig_nap 0.05
  done
}

# rig_wait_for_node PATTERN [SECONDS]: waits until a file matching PATTERN exists.
rig_wait_for_node() {
  local deadline=$((SECONDS + ${2:-30})) found
  until found=$(compgen -G "$1") && [ -n "$found" ]; do
    ((SECONDS < deadline)) || rig_fail "no $1"
    rig_nap 0.05
  done
}

# rig_vt_modes: the active VT's display and keyboard modes, "DISPLAY KEYBOARD" (KDGETMODE
# 0x4B3B: 0 text, 1 graphics; KDGKBMODE 0x4B44): what a screen must give back at exit.
rig_vt_modes() {
  python3 -c '
import array, fcntl, os
fd = os.open("/dev/tty0", os.O_RDWR | os.O_NOCTTY)
mode, kb = array.array("i", [0]), array.array("i", [0])
fcntl.ioctl(fd, 0x4B3B, mode)
fcntl.ioctl(fd, 0x4B44, kb)
print(mode[0], kb[0])'
}

# rig_node_of NAME_SUBSTRING: the /dev/input/eventN whose device name contains it.
rig_node_of() {
  local dir
  for dir in /sys/class/input/event*; do
    if grep -qF "$1" "$dir/device/name" 2>/dev/null; then
      echo "/dev/input/$(basename "$dir")"
      return 0
    fi
  done
  return 1
}

# rig_node_of_phys GLOB: the /dev/input/eventN whose physical path matches GLOB, e.g.
# "usb-*-2/input0" for USB port 2's keyboard in a `# rig-keyboards: 2` case.
rig_node_of_phys() {
  local dir phys
  for dir in /sys/class/input/event*; do
    phys=$(cat "$dir/device/phys" 2>/dev/null) || continue
    # shellcheck disable=SC2053
    if [[ $phys == $1 ]]; then
      echo "/dev/input/$(basename "$dir")"
      return 0
    fi
  done
  return 1
}
