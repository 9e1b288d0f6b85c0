"""Host side of drm: screendump the DRM screen and compare it with the snapshot
renderer's newest frame, idle and after typing digits; after a VT switch away and back
compare again; with the connector off, a digit typed is not drawn, and once it is back
the screen is redrawn with it; then the same with Rotate=90."""
import os
import time

import png
import qmp


def newest_frame(folder):
    frames = sorted(f for f in os.listdir(folder) if f.startswith("frame-") and f.endswith(".png"))
    return os.path.join(folder, frames[-1]) if frames else None


def matches(rig, name, what, deadline_s=60):
    """Waits until a screendump equals the snapshot's newest frame (both pinpadds draw
    the same states; under load one may lag). Returns that frame's name."""
    folder = open(os.path.join(rig.scratch, "snapshots")).read().strip()
    shot = os.path.join(rig.scratch, f"{name}-{what}.png")
    deadline = time.monotonic() + deadline_s
    while True:
        rig.qmp.execute("screendump", filename=shot, format="png")
        frame = newest_frame(folder)
        if frame:
            count, first = png.differences(png.read(shot), png.read(frame))
            if count == 0:
                rig.log(f"{name} {what}: screendump equals {os.path.basename(frame)} (pixel-exact)")
                return frame
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} {what}: screendump differs from {frame} in {count} pixels, first {first}")
        time.sleep(1.0)


def drawn_after(rig, name, idle, deadline_s=60):
    """Waits until the snapshot pinpadd has drawn a frame after `idle` and drawn no other
    for 2 s: the digits typed all shown. Under load (a start took 13 s in TCG on a busy
    CI machine) it may not have drawn any 1 s after they were typed, and the screen
    then still equals the idle frame."""
    folder = open(os.path.join(rig.scratch, "snapshots")).read().strip()
    deadline = time.monotonic() + deadline_s
    last, since = newest_frame(folder), time.monotonic()
    while os.path.basename(last) == os.path.basename(idle) or time.monotonic() - since < 2:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name}: no frame drawn after the digits")
        time.sleep(0.25)
        frame = newest_frame(folder)
        if frame != last:
            last, since = frame, time.monotonic()


def not_drawn(rig, name, what, key):
    """Types `key`; the snapshot pinpadd draws it, the screen must not show it."""
    folder = open(os.path.join(rig.scratch, "snapshots")).read().strip()
    before = newest_frame(folder)
    rig.qmp.send_key(key)
    deadline = time.monotonic() + 60
    while newest_frame(folder) == before:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the snapshot pinpadd drew nothing for the digit typed {what}")
        time.sleep(0.5)
    time.sleep(1.0)
    shot = os.path.join(rig.scratch, f"{name}-{what}.png")
    rig.qmp.execute("screendump", filename=shot, format="png")
    count, _ = png.differences(png.read(shot), png.read(newest_frame(folder)))
    if count == 0:
        raise RuntimeError(f"the digit typed {what} was drawn on the screen")
    rig.log(f"{what}: the new digit not drawn ({count} pixels differ)")


def drive(rig):
    for name, digits in [("upright", ["kp_2", "kp_5", "kp_8", "kp_0"]), ("rotated", ["kp_4", "kp_1"])]:
        if not rig.wait(f"{name}-ready"):
            return
        idle = matches(rig, name, "idle")
        for key in digits:
            rig.qmp.send_key(key)
        drawn_after(rig, name, idle)
        typed = matches(rig, name, "typed")
        if os.path.basename(typed) == os.path.basename(idle):
            raise RuntimeError(f"{name}: no frame drawn after the digits")
        rig.signal(f"{name}-typed")
        if name == "upright":
            # Each step: wait for the guest, check the screen, tell the guest.
            for ready, check, done in [
                ("away", lambda: not_drawn(rig, name, "away", "kp_9"), "typed-away"),
                ("switched", lambda: matches(rig, name, "after-vt-switch"), "redrawn"),
                ("unplugged", lambda: not_drawn(rig, name, "unplugged", "kp_7"), "typed-unplugged"),
                ("replugged", lambda: matches(rig, name, "after-replug"), "replug-redrawn"),
            ]:
                if not rig.wait(f"{name}-{ready}"):
                    return
                check()
                rig.signal(f"{name}-{done}")

qmp.main(drive)
