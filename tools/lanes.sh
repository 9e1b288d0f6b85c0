# Pieces of a test run side by side (sourced by tools/test-all.sh and
# tools/test-releases.sh). Set LANES_LOGS (a folder) and LANES_NAME (what each line of
# progress starts with) before sourcing. A piece run beside others writes its output to
# LANES_LOGS/NAME.log and its exit status and seconds to LANES_LOGS/NAME.rc; `await`
# shows that output when the piece ends, so a CI log stays readable piece by piece.
mkdir -p "$LANES_LOGS"
lanes_pids=()
# Every piece still running is stopped when the script ends, however it ends.
trap 'for p in "${lanes_pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done' EXIT

stamp() { echo "$LANES_NAME: $(date -u +%T) $*"; }

# behind NAME COMMAND...: runs COMMAND in the background (a shell function too). From
# the script itself, in a process group of its own, so that the EXIT trap stops all of
# it; from inside a piece (a lane starting its own pieces), in that piece's group, which
# the script's trap stops with everything else in it.
behind() {
  local name=$1
  shift
  rm -f "$LANES_LOGS/$name.rc"
  stamp "$name: started beside the others (log $LANES_LOGS/$name.log)"
  [[ $BASHPID == "$$" ]] && set -m
  { local t0=$SECONDS rc=0; "$@" >"$LANES_LOGS/$name.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - t0))" >"$LANES_LOGS/$name.rc"; } &
  lanes_pids+=($!)
  set +m
}

# await NAME [LINES]: waits for a piece started by behind; shows the last LINES (default:
# all) of its log, all of it when it failed. Returns the piece's exit status.
await() {
  local name=$1 lines=${2:-}
  while [[ ! -f $LANES_LOGS/$name.rc ]]; do sleep 1; done
  local rc took
  read -r rc took <"$LANES_LOGS/$name.rc"
  echo "----- $name (${took} s) -----"
  if [[ $rc != 0 || -z $lines ]]; then cat "$LANES_LOGS/$name.log"; else tail -"$lines" "$LANES_LOGS/$name.log"; fi
  if [[ $rc != 0 ]]; then
    stamp "$name FAILED (exit $rc, ${took} s)"
    return 1
  fi
  stamp "$name done in ${took} s"
}

# timed NAME COMMAND...: runs COMMAND here, with its start and its time.
timed() {
  local name=$1 t0=$SECONDS rc=0
  shift
  stamp "$name"
  "$@" || rc=$?
  if [[ $rc != 0 ]]; then
    stamp "$name FAILED (exit $rc, $((SECONDS - t0)) s)"
    return "$rc"
  fi
  stamp "$name done in $((SECONDS - t0)) s"
}
