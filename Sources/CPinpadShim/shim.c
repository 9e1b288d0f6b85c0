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
#include <link.h>

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

int pinpad_memlock_unlimited(void) {
  struct rlimit limit;
  return getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur == RLIM_INFINITY;
}

int pinpad_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

struct release_pages { int relock; long released; int error; };

static int has_text_relocations(const struct dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn->d_tag != DT_NULL; dyn++) {
      if (dyn->d_tag == DT_TEXTREL) return 1;
      if (dyn->d_tag == DT_FLAGS && (dyn->d_un.d_val & DF_TEXTREL)) return 1;
    }
  }
  return 0;
}

static int release_object_pages(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct release_pages *state = data;
  // The program itself is named "", a library by its path; the vDSO is no file.
  if (info->dlpi_name[0] != 0 && info->dlpi_name[0] != '/') return 0;
  if (has_text_relocations(info)) return 0;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0)
      continue;
    uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~(page - 1);
    uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + page - 1) & ~(page - 1);
    void *address = (void *)start;
    size_t length = end - start;
    if (state->relock && munlock(address, length) != 0) { state->error = errno; return 1; }
    int released = madvise(address, length, MADV_DONTNEED) == 0 ? 0 : errno;
    if (state->relock && mlock2(address, length, MLOCK_ONFAULT) != 0 && released == 0)
      released = errno;
    if (released != 0) { state->error = released; return 1; }
    state->released += (long)length;
  }
  return 0;
}

long pinpad_release_readonly_pages(int relock) {
  struct release_pages state = { relock, 0, 0 };
  dl_iterate_phdr(release_object_pages, &state);
  return state.error != 0 ? -state.error : state.released;
}

long pinpad_getrandom(void *buffer, unsigned long length) { return getrandom(buffer, length, 0); }
