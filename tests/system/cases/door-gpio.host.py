"""Host side of door-gpio: for each guest signal keys-N, types the qcodes listed in
$RIG_SCRATCH/keys-N on the USB keyboard (input-send-event, delivered at once)."""
import os

import qmp


def drive(rig):
    step = 1
    while rig.wait_any(["keys-%d" % step]):
        with open(os.path.join(rig.scratch, "keys-%d" % step)) as f:
            words = f.read().split()
        rig.qmp.type_on(None, words, gap=0.02)
        step += 1


qmp.main(drive)
