// SPDX-License-Identifier: Apache-2.0
// EVIOCSCLOCKID for the Swift evdev wrapper (see include/shim_evdev.h).
#include "shim_evdev.h"

#include <errno.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <time.h>

int pinpad_evdev_use_monotonic_clock(int fd) {
  int clock = CLOCK_MONOTONIC;
  return ioctl(fd, EVIOCSCLOCKID, &clock) == 0 ? 0 : -errno;
}
