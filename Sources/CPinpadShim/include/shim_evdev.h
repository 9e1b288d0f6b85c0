// SPDX-License-Identifier: Apache-2.0
// What Swift cannot import for evdev input devices: ioctls whose numbers are _IOW/_IOR
// macros with arguments.
#pragma once

/// Switches an evdev fd (O_NONBLOCK) to CLOCK_MONOTONIC timestamps (EVIOCSCLOCKID),
/// after reading away, unseen, the events queued since it was opened. Call it before
/// reading any state: they predate that state. Only an event that comes between that
/// read and the switch is flushed by the switch, which then queues a SYN_DROPPED.
/// Returns 0 or -errno (-ENOTTY, having read nothing, when the fd is not an evdev node,
/// e.g. a test pipe).
int pinpad_evdev_use_monotonic_clock(int fd);
