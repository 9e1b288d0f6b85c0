#!/usr/bin/env bash
# `make run`: build, then run pinpadd on this terminal (--input terminal, --display
# console) with a demo controller, `pinpadctl serve`, that grants the demo code 1234 and
# denies any other. Everything lives in RUNDIR: the socket, the lockout state, the
# codes file (a yescrypt hash, never the code), and the logs pinpadd.log and serve.log,
# so that no log line is drawn over the screen.
#
#   tools/run-demo.sh [--no-build] BIN RUNDIR CONFIG
#
# DEMO=no leaves the controller out: answer each attempt by hand with
# `pinpadctl verdict` within [Socket] VerdictTimeoutSec= (10 s).
set -euo pipefail
build=yes
if [ "${1:-}" = --no-build ]; then build=no; shift; fi
bin=$1 rundir=$2 config=$3
demo_code=1234

# From here until pinpadd owns the terminal, typed keys are not echoed: digits typed
# during the build would stay on screen. pinpadd discards them when it starts.
if [ -t 0 ]; then
  saved=$(stty -g)
  trap 'stty "$saved"' EXIT
  trap 'exit 130' INT TERM HUP
  stty -echo
fi
if [ "$build" = yes ]; then "${SWIFT:-swift}" build -c "${CONFIGURATION:-debug}"; fi

mkdir -p "$rundir"
socket=$rundir/pinpadd.sock
if [ "${DEMO:-yes}" != no ]; then
  codes=$rundir/codes
  if [ ! -s "$codes" ]; then
    # The code goes through a pipe from a shell builtin: never argv, never a file.
    (umask 077 && echo "$demo_code" | "$bin/pinpadctl" hash demo >"$codes")
  fi
  "$bin/pinpadctl" --socket "$socket" serve --codes "$codes" --state-dir "$rundir/serve-state" \
    2>>"$rundir/serve.log" &
  serve=$!
  trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null || true; [ -z "${saved:-}" ] || stty "$saved"' EXIT
fi
status=0
"$bin/pinpadd" --input terminal --display console --socket "$socket" \
  --state-dir "$rundir/state" --config "$config" 2>>"$rundir/pinpadd.log" || status=$?
if [ "${DEMO:-yes}" != no ]; then
  echo "pinpadd stopped. The demo controller granted $demo_code; its log: $rundir/serve.log"
fi
echo "pinpadd's log: $rundir/pinpadd.log"
exit $status
