// SPDX-License-Identifier: Apache-2.0
// The C shim: macros with arguments become functions, ioctl numbers become constants.
#define _GNU_SOURCE
#include "shim_io.h"
#include <errno.h>
#include <stddef.h>
#include <unistd.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <linux/capability.h>
#include <sys/syscall.h>

int pinpad_peer_credentials(int fd, int *pid, unsigned *uid, unsigned *gid) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  *pid = cred.pid;
  *uid = cred.uid;
  *gid = cred.gid;
  return 0;
}

int pinpad_peer_groups(int fd, unsigned *groups, int capacity) {
  socklen_t len = (socklen_t)(capacity > 0 ? capacity : 0) * sizeof(gid_t);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
    if (errno == ERANGE) return (int)(len / sizeof(gid_t));
    return -1;
  }
  return (int)(len / sizeof(gid_t));
}

long pinpad_raise_nofile_limit(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  }
  return (long)limit.rlim_cur;
}

int pinpad_block_signals(const int *signals, int count, sigset_t *out_set) {
  sigemptyset(out_set);
  for (int i = 0; i < count; i++) sigaddset(out_set, signals[i]);
  return pthread_sigmask(SIG_BLOCK, out_set, NULL);
}

int pinpad_signalfd(const sigset_t *set) {
  return signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int pinpad_accept4(int fd, int flags) { return accept4(fd, NULL, NULL, flags); }

int pinpad_forbid_dumps(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int pinpad_may_lock_all(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur == RLIM_INFINITY) return 1;
  // CAP_IPC_LOCK lifts the limit for this process (mlock(2)); capget(2) has no glibc
  // wrapper.
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  if (syscall(SYS_capget, &header, data) != 0) return 0;
  return (data[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32)) & 1;
}

int pinpad_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

long pinpad_getrandom(void *buffer, unsigned long length) { return getrandom(buffer, length, 0); }
