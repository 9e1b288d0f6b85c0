// SPDX-License-Identifier: Apache-2.0
// The GPIO character device's uAPI v2 (linux/gpio.h, Linux 5.10+): its ioctl numbers are
// _IOWR macros and its structs carry fixed arrays, so each call is one small C function.
#pragma once
#include <stdint.h>

/// GPIO_GET_CHIPINFO_IOCTL: the chip's name ("gpiochip0"), label and line count.
/// Returns 0 or -errno (-ENOTTY when fd is not a gpiochip).
int pinpad_gpio_chip_info(int chip_fd, char name[32], char label[32], uint32_t *lines);
/// GPIO_V2_GET_LINEINFO_IOCTL: one line's name, consumer and whether it is in use.
int pinpad_gpio_line_info(int chip_fd, uint32_t offset, char name[32], char consumer[32],
                          int *used, int *output);
/// GPIO_V2_GET_LINE_IOCTL for one output line, driven to `value` (logical) as it is
/// requested, so it is never at another level in between. Returns the request's fd
/// (O_CLOEXEC) or -errno.
int pinpad_gpio_request_output(int chip_fd, uint32_t offset, int active_low, int value,
                               const char *consumer);
/// GPIO_V2_GET_LINE_IOCTL for one input line with events on both edges. Returns the
/// request's fd (non-blocking reads, O_CLOEXEC) or -errno.
int pinpad_gpio_request_input(int chip_fd, uint32_t offset, int active_low,
                              const char *consumer);
/// GPIO_V2_LINE_SET_VALUES_IOCTL: 0 or -errno.
int pinpad_gpio_set(int request_fd, int value);
/// GPIO_V2_LINE_GET_VALUES_IOCTL: 0 or 1 (logical), or -errno.
int pinpad_gpio_get(int request_fd);
/// Reads one struct gpio_v2_line_event: 1 (rising in *rising), 0 when none is queued,
/// or -errno (-ENODEV once the chip is gone).
int pinpad_gpio_read_event(int request_fd, uint64_t *timestamp_ns, int *rising);
