"""Host side of drm: screendump the DRM screen and compare it with the snapshot
renderer's newest frame, idle and after typing digits; after a VT switch away and back
compare again; then the same with Rotate=90."""
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


def drive(rig):
    for name, digits in [("upright", ["kp_2", "kp_5", "kp_8", "kp_0"]), ("rotated", ["kp_4", "kp_1"])]:
        if not rig.wait(f"{name}-ready"):
            return
        idle = matches(rig, name, "idle")
        for key in digits:
            rig.qmp.send_key(key)
        time.sleep(1.0)
        typed = matches(rig, name, "typed")
        if os.path.basename(typed) == os.path.basename(idle):
            raise RuntimeError(f"{name}: no frame drawn after the digits")
        rig.signal(f"{name}-typed")
        if name == "upright":
            if not rig.wait(f"{name}-away"):
                return
            folder = open(os.path.join(rig.scratch, "snapshots")).read().strip()
            before = newest_frame(folder)
            rig.qmp.send_key("kp_9")
            deadline = time.monotonic() + 60
            while newest_frame(folder) == before:
                if time.monotonic() > deadline:
                    raise RuntimeError("the snapshot pinpadd drew nothing for the digit typed away")
                time.sleep(0.5)
            time.sleep(1.0)
            away = os.path.join(rig.scratch, f"{name}-away.png")
            rig.qmp.execute("screendump", filename=away, format="png")
            count, _ = png.differences(png.read(away), png.read(newest_frame(folder)))
            if count == 0:
                raise RuntimeError("the digit typed while switched away was drawn on the screen")
            rig.log(f"switched away: the new digit not drawn ({count} pixels differ)")
            rig.signal(f"{name}-typed-away")
            if not rig.wait(f"{name}-switched"):
                return
            matches(rig, name, "after-vt-switch")
            rig.signal(f"{name}-redrawn")


qmp.main(drive)
