"""Host side of screen: screendump the idle screen and compare it with the snapshot
renderer's frame, then click 2 5 8 0 OK on the usb-tablet."""
import os
import time

import png
import qmp

# Reading-order cells of the phone layout: 1-9, Backspace, 0, OK.
CELL = {"1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6, "8": 7, "9": 8,
        "backspace": 9, "0": 10, "ok": 11}


def changed_box(a, b):
    """The bounding box (x0, y0, x1, y1) of the pixels that differ, None when none."""
    (w, h, ra), (_, _, rb) = a, b
    box = None
    for y in range(h):
        if ra[y] == rb[y]:
            continue
        xs = [x for x in range(w) if ra[y][3 * x:3 * x + 3] != rb[y][3 * x:3 * x + 3]]
        x0, x1 = min(xs), max(xs)
        box = (x0, y, x1, y) if box is None else (min(box[0], x0), box[1], max(box[2], x1), y)
    return box


def click(rig, width, height, x, y, while_down=None):
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
    if while_down:
        while_down()
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
    idle = png.read(shot)

    def pressed_state():
        # While the button is down, key 2 and nothing else is drawn pressed.
        time.sleep(1.0)
        held = os.path.join(scratch, "pressed.png")
        rig.qmp.execute("screendump", filename=held, format="png")
        box = changed_box(png.read(held), idle)
        cx, cy = centres[CELL["2"]]
        half_w = (centres[1][0] - centres[0][0]) // 2
        half_h = (centres[3][1] - centres[0][1]) // 2
        if box is None:
            raise RuntimeError("a held click on key 2 changed nothing on the screen")
        if not (cx - half_w <= box[0] and box[2] <= cx + half_w
                and cy - half_h <= box[1] and box[3] <= cy + half_h):
            raise RuntimeError(f"the held click changed {box}, beyond key 2 at {cx},{cy}")
        rig.log(f"key 2 drawn pressed while held (changed {box})")

    for key in ["2", "5", "8", "0", "ok"]:
        x, y = centres[CELL[key]]
        click(rig, width, height, x, y, pressed_state if key == "2" else None)
    rig.signal("compared")


qmp.main(drive)
