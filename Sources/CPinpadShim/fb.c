// SPDX-License-Identifier: Apache-2.0
// ioctl is variadic; these give Swift fixed signatures for the framebuffer and VT calls.
#include "shim_fb.h"
#include <sys/ioctl.h>

int pinpad_ioctl_value(int fd, unsigned long request, unsigned long value) {
  return ioctl(fd, request, value);
}

int pinpad_ioctl_pointer(int fd, unsigned long request, void *pointer) {
  return ioctl(fd, request, pointer);
}
