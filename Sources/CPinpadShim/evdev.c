// EVIOCSCLOCKID and EVIOCGKEY for the Swift evdev wrapper (see include/shim_evdev.h).
#include "shim_evdev.h"

#include <errno.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <time.h>

int pinpad_evdev_use_monotonic_clock(int fd) {
  int clock = CLOCK_MONOTONIC;
  return ioctl(fd, EVIOCSCLOCKID, &clock) == 0 ? 0 : -errno;
}

int pinpad_evdev_kernel_keys_down(int fd) {
  unsigned char bits[KEY_MAX / 8 + 1] = {0};
  if (ioctl(fd, EVIOCGKEY(sizeof bits), bits) < 0) return -errno;
  int down = 0;
  for (unsigned i = 0; i < sizeof bits; i++) down += __builtin_popcount(bits[i]);
  return down;
}
