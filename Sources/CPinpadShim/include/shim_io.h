// SPDX-License-Identifier: Apache-2.0
// What Swift cannot import for the event loop, sockets, terminals and the process.
// Each area of the C shim has its own header; this folder is the module's umbrella.
#pragma once
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <signal.h>
#include <termios.h>

/// struct ucred needs _GNU_SOURCE; this returns its fields instead.
int pinpad_peer_credentials(int fd, int *pid, unsigned *uid, unsigned *gid);
/// getsockopt(SO_PEERGROUPS): the peer's supplementary groups as the kernel holds them
/// (taken at connect). Fills up to `capacity` entries and returns how many there are
/// (call again with more room when that is larger), or -1 with errno.
int pinpad_peer_groups(int fd, unsigned *groups, int capacity);
/// setrlimit(RLIMIT_NOFILE) soft = hard; returns the new soft limit, or -1.
long pinpad_raise_nofile_limit(void);

/// sigaddset etc. are macros on some libcs: wrapped as functions.
int pinpad_block_signals(const int *signals, int count, sigset_t *out_set);
int pinpad_signalfd(const sigset_t *set);

/// _GNU_SOURCE calls, so Swift need not define it.
int pinpad_accept4(int fd, int flags);

/// prctl(PR_SET_DUMPABLE, 0): variadic, so wrapped.
int pinpad_forbid_dumps(void);
/// 1 when RLIMIT_MEMLOCK is unlimited.
int pinpad_may_lock_all(void);
/// mallopt(M_MMAP_THRESHOLD, bytes): 1 when glibc took it.
int pinpad_set_mmap_threshold(int bytes);
/// getrandom(2) (sys/random.h is not in Glibc's module map).
long pinpad_getrandom(void *buffer, unsigned long length);
