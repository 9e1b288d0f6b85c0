#!/bin/bash
# Makes the pictures of the screen (README, docs/) with `pinpadd --display snapshot:DIR`:
# a recorded PIN is replayed in real time into the daemon, a client denies it, and
# chosen frames are copied here. Run from the repository root after `swift build`.
set -euo pipefail
out=docs/screens
bin=.build/debug
work=$(mktemp -d /tmp/pinpadd-screens.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# DejaVu Sans Bold (fonts-dejavu-core), the default where installed: named, so that a
# machine without it fails here instead of drawing another font.
font=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
[ -f $font ] || { echo "make-screens: $font is missing (apt-get install fonts-dejavu-core)" >&2; exit 1; }

# KEY_n press+release at each time (seconds), then Enter.
record() {  # record FILE "t:code t:code ..."
  local file=$1 item
  : >"$file"
  for item in $2; do
    printf 'E: %s 0001 %04x 1\nE: %s 0000 0000 0\nE: %s 0001 %04x 0\nE: %s 0000 0000 0\n' \
      "${item%%:*}" "${item##*:}" "${item%%:*}" "${item%%:*}" "${item##*:}" "${item%%:*}" >>"$file"
  done
}

# shoot NAME PAD KEYS [deny]: runs the daemon over the recording; frames land in $work/NAME.
shoot() {
  local name=$1 pad=$2 keys=$3 deny=${4:-}
  cat >"$work/$name.conf" <<CONF
[Display]
Font=$font
SnapshotSize=800x480
OnScreenKeypad=$pad
CONF
  record "$work/$name.evemu" "$keys"
  "$bin/pinpadd" --config "$work/$name.conf" --input "replay:$work/$name.evemu" \
    --display "snapshot:$work/$name" --socket "$work/$name.sock" \
    --state-dir "$work/$name-state" 2>"$work/$name.log" &
  local daemon=$!
  until [ -S "$work/$name.sock" ]; do sleep 0.05; done
  "$bin/pinpadctl" --socket "$work/$name.sock" listen >"$work/$name.events" &
  local listener=$!
  if [ -n "$deny" ]; then
    until grep -q '"type":"code"' "$work/$name.events"; do sleep 0.05; done
    local id
    id=$(sed -n 's/.*"type":"code","id":"\([^"]*\)".*/\1/p' "$work/$name.events" | head -1)
    "$bin/pinpadctl" --socket "$work/$name.sock" verdict "$id" denied
  fi
  sleep 2
  kill -TERM $daemon $listener 2>/dev/null || true
  wait $daemon || true
}

# KEY_1=2 KEY_2=3 KEY_3=4 KEY_4=5 KEY_7=8 KEY_ENTER=28
shoot plain no "1.0:2 1.5:3 2.0:4 2.5:5 3.0:28" deny
shoot pad yes "1.0:8 1.5:4"
# plain: idle, 1-4 dots, checking, denied; pad: idle, 1-2 dots.
[ "$(ls "$work/plain" | wc -l)" = 7 ] || { ls "$work/plain"; echo "expected 7 frames" >&2; exit 1; }
[ "$(ls "$work/pad" | wc -l)" = 3 ] || { ls "$work/pad"; echo "expected 3 frames" >&2; exit 1; }
cp "$work/plain/frame-000001.png" $out/idle.png
cp "$work/plain/frame-000003.png" $out/entering.png
cp "$work/plain/frame-000007.png" $out/denied.png
cp "$work/pad/frame-000003.png" $out/keypad.png
ls -l $out/*.png
