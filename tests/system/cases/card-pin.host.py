"""Host side of card-pin: for each guest signal keys-N, types the qcodes listed in
$RIG_SCRATCH/keys-N ("KEYBOARD QCODE...") on that USB keyboard (1 the keypad, 2 the
card reader), each aimed at the keyboard's display head."""
import os

import qmp
from qmp import keyboard


def drive(rig):
    step = 1
    while rig.wait_any(["keys-%d" % step]):
        with open(os.path.join(rig.scratch, "keys-%d" % step)) as f:
            words = f.read().split()
        rig.log("keys-%d: %d keys on keyboard %s" % (step, len(words) - 1, words[0]))
        rig.qmp.type_on(keyboard(int(words[0])), words[1:])
        step += 1


qmp.main(drive)
