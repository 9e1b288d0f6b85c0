// SPDX-License-Identifier: Apache-2.0
// What Swift cannot import for evdev input devices: ioctls whose numbers are _IOW/_IOR
// macros with arguments.
#pragma once

/// Switches an evdev fd's event timestamps to CLOCK_MONOTONIC (EVIOCSCLOCKID).
/// Call it before reading any state: changing the clock flushes the kernel's queue.
/// Returns 0 or -errno (-ENOTTY when the fd is not an evdev node, e.g. a test pipe).
int pinpad_evdev_use_monotonic_clock(int fd);
