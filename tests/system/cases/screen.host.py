"""Host side of screen: screendump the idle screen and compare it with the snapshot
renderer's frame, then click 2 5 8 0 OK on the usb-tablet."""
import os
import time

import png
import qmp

# Reading-order cells of the phone layout: 1-9, Backspace, 0, OK.
CELL = {"1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6, "8": 7, "9": 8,
        "backspace": 9, "0": 10, "ok": 11}


def click(rig, width, height, x, y):
    # No `device=`: QEMU only routes to devices bound to a console; absolute events go
    # to the one absolute pointer, the usb-tablet.
    def scaled(v, pixels):
        return round(v * 32767 / (pixels - 1))
    move = [{"type": "abs", "data": {"axis": "x", "value": scaled(x, width)}},
            {"type": "abs", "data": {"axis": "y", "value": scaled(y, height)}}]
    rig.qmp.execute("input-send-event", events=move)
    time.sleep(0.1)
    button = {"type": "btn", "data": {"down": True, "button": "left"}}
    rig.qmp.execute("input-send-event", events=[button])
    time.sleep(0.15)
    button["data"]["down"] = False
    rig.qmp.execute("input-send-event", events=[button])
    time.sleep(0.25)


def drive(rig):
    if not rig.wait("ready"):
        return
    scratch = rig.scratch
    width, height = map(int, open(os.path.join(scratch, "size.txt")).read().split())
    centres = [tuple(map(int, c.split(","))) for c in open(os.path.join(scratch, "keys.txt")).read().split()]
    if len(centres) != 12:
        raise RuntimeError(f"expected 12 key centres, got {centres}")
    time.sleep(1.0)  # the fbdev emulation flushes damage on a short timer
    shot = os.path.join(scratch, "screendump.png")
    started = time.monotonic()
    rig.qmp.execute("screendump", filename=shot, format="png")
    rig.log(f"screendump took {time.monotonic() - started:.2f}s")
    expected = png.read(os.path.join(scratch, "snapshot", "frame-000001.png"))
    count, first = png.differences(png.read(shot), expected)
    if count:
        raise RuntimeError(f"screendump differs from the snapshot in {count} pixels, first {first}")
    rig.log(f"screendump equals the snapshot frame ({width}x{height}, pixel-exact)")
    for key in ["2", "5", "8", "0", "ok"]:
        x, y = centres[CELL[key]]
        click(rig, width, height, x, y)
    rig.signal("compared")


qmp.main(drive)
