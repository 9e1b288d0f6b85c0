// SPDX-License-Identifier: Apache-2.0
// The framebuffer and virtual-terminal ioctls for the fb display.
#pragma once
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/vt.h>

static const unsigned long PINPAD_FBIOGET_VSCREENINFO = FBIOGET_VSCREENINFO;
static const unsigned long PINPAD_FBIOGET_FSCREENINFO = FBIOGET_FSCREENINFO;
static const unsigned long PINPAD_FBIOPAN_DISPLAY = FBIOPAN_DISPLAY;
static const unsigned long PINPAD_KDGETMODE = KDGETMODE;
static const unsigned long PINPAD_KDSETMODE = KDSETMODE;
static const int PINPAD_KD_TEXT = KD_TEXT;
static const int PINPAD_KD_GRAPHICS = KD_GRAPHICS;
static const unsigned long PINPAD_KDGKBMODE = KDGKBMODE;
static const unsigned long PINPAD_KDSKBMODE = KDSKBMODE;
static const int PINPAD_K_OFF = K_OFF;
static const int PINPAD_K_XLATE = K_XLATE;
static const unsigned long PINPAD_VT_GETMODE = VT_GETMODE;
static const unsigned long PINPAD_VT_SETMODE = VT_SETMODE;
static const unsigned long PINPAD_VT_GETSTATE = VT_GETSTATE;
static const unsigned long PINPAD_VT_RELDISP = VT_RELDISP;
static const int PINPAD_VT_AUTO = VT_AUTO;
static const int PINPAD_VT_PROCESS = VT_PROCESS;
static const int PINPAD_VT_ACKACQ = VT_ACKACQ;

/// ioctl(fd, request, value) for requests taking an integer argument (KDSETMODE ...).
int pinpad_ioctl_value(int fd, unsigned long request, unsigned long value);
/// ioctl(fd, request, pointer) for requests filling or reading a struct.
int pinpad_ioctl_pointer(int fd, unsigned long request, void *pointer);
