// SPDX-License-Identifier: Apache-2.0
// EVIOCSCLOCKID for the Swift evdev wrapper (see include/shim_evdev.h).
#include "shim_evdev.h"

#include <errno.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int pinpad_evdev_use_monotonic_clock(int fd) {
  int version = 0;
  if (ioctl(fd, EVIOCGVERSION, &version) != 0) return -errno;  // not evdev: read nothing
  // Read away the packets queued since open(2): e.g. the held key's autorepeat during
  // usbhid's 50 ms wait inside open(). The kernel only ever queues whole packets, so an
  // empty read here leaves the queue empty, and the switch below then flushes nothing
  // and queues no SYN_DROPPED (which libevdev would answer, one report later, by
  // draining everything queued by then). A flooding device is left after 16 full reads.
  struct input_event discard[64];
  for (int round = 0; round < 16; round++) {
    ssize_t got = read(fd, discard, sizeof discard);
    if (got < 0 && errno == EINTR) continue;
    if (got < (ssize_t)sizeof discard) break;  // EAGAIN, an error, or the last packets
  }
  int clock = CLOCK_MONOTONIC;
  return ioctl(fd, EVIOCSCLOCKID, &clock) == 0 ? 0 : -errno;
}
