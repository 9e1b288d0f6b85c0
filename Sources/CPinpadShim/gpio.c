// SPDX-License-Identifier: Apache-2.0
// The GPIO uAPI v2 calls of include/shim_gpio.h.
#include "shim_gpio.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int retry_ioctl(int fd, unsigned long request, void *argument) {
  int result;
  do { result = ioctl(fd, request, argument); } while (result < 0 && errno == EINTR);
  return result < 0 ? -errno : result;
}

int pinpad_gpio_chip_info(int chip_fd, char name[32], char label[32], uint32_t *lines) {
  struct gpiochip_info info;
  memset(&info, 0, sizeof info);
  int result = retry_ioctl(chip_fd, GPIO_GET_CHIPINFO_IOCTL, &info);
  if (result < 0) return result;
  memcpy(name, info.name, 32);
  memcpy(label, info.label, 32);
  name[31] = label[31] = 0;
  *lines = info.lines;
  return 0;
}

int pinpad_gpio_line_info(int chip_fd, uint32_t offset, char name[32], char consumer[32],
                          int *used, int *output) {
  struct gpio_v2_line_info info;
  memset(&info, 0, sizeof info);
  info.offset = offset;
  int result = retry_ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, &info);
  if (result < 0) return result;
  memcpy(name, info.name, 32);
  memcpy(consumer, info.consumer, 32);
  name[31] = consumer[31] = 0;
  *used = (info.flags & GPIO_V2_LINE_FLAG_USED) != 0;
  *output = (info.flags & GPIO_V2_LINE_FLAG_OUTPUT) != 0;
  return 0;
}

static int request(int chip_fd, uint32_t offset, uint64_t flags, int with_value, int value,
                   const char *consumer) {
  struct gpio_v2_line_request request;
  memset(&request, 0, sizeof request);
  request.offsets[0] = offset;
  request.num_lines = 1;
  strncpy(request.consumer, consumer, sizeof request.consumer - 1);
  request.config.flags = flags;
  if (with_value) {
    // The initial level is part of the request: the line is never driven otherwise.
    request.config.num_attrs = 1;
    request.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
    request.config.attrs[0].attr.values = value ? 1 : 0;
    request.config.attrs[0].mask = 1;
  }
  int result = retry_ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &request);
  if (result < 0) return result;
  int fd = request.fd;
  if (!with_value) {
    int status = fcntl(fd, F_GETFL);
    if (status < 0 || fcntl(fd, F_SETFL, status | O_NONBLOCK) < 0) {
      int error = errno;
      close(fd);
      return -error;
    }
  }
  return fd;  // the kernel makes it O_CLOEXEC
}

int pinpad_gpio_request_output(int chip_fd, uint32_t offset, int active_low, int value,
                               const char *consumer) {
  uint64_t flags = GPIO_V2_LINE_FLAG_OUTPUT | (active_low ? GPIO_V2_LINE_FLAG_ACTIVE_LOW : 0);
  return request(chip_fd, offset, flags, 1, value, consumer);
}

int pinpad_gpio_request_input(int chip_fd, uint32_t offset, int active_low,
                              const char *consumer) {
  uint64_t flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING |
                   GPIO_V2_LINE_FLAG_EDGE_FALLING |
                   (active_low ? GPIO_V2_LINE_FLAG_ACTIVE_LOW : 0);
  return request(chip_fd, offset, flags, 0, 0, consumer);
}

int pinpad_gpio_set(int request_fd, int value) {
  struct gpio_v2_line_values values = {.bits = value ? 1 : 0, .mask = 1};
  int result = retry_ioctl(request_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &values);
  return result < 0 ? result : 0;
}

int pinpad_gpio_get(int request_fd) {
  struct gpio_v2_line_values values = {.bits = 0, .mask = 1};
  int result = retry_ioctl(request_fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values);
  return result < 0 ? result : (int)(values.bits & 1);
}

int pinpad_gpio_read_event(int request_fd, uint64_t *timestamp_ns, int *rising) {
  struct gpio_v2_line_event event;
  ssize_t got;
  do { got = read(request_fd, &event, sizeof event); } while (got < 0 && errno == EINTR);
  if (got < 0) return errno == EAGAIN ? 0 : -errno;
  if (got != (ssize_t)sizeof event) return -EIO;
  *timestamp_ns = event.timestamp_ns;
  *rising = event.id == GPIO_V2_LINE_EVENT_RISING_EDGE;
  return 1;
}
