// SPDX-License-Identifier: Apache-2.0 (LICENSE)
// `make bench`'s malloc counter, loaded with LD_PRELOAD: every malloc, calloc, realloc,
// posix_memalign, aligned_alloc, memalign and valloc of the process (any thread) adds
// one to a counter kept in the first 8 bytes of the file named by ALLOC_COUNT_FILE
// (made by the driver, mapped shared), so the driver reads the count while the
// process runs, before and after a batch of codes. Frees are not counted.
// The calls go on to glibc's own __libc_* entry points (no dlsym, which allocates).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);

static uint64_t unmapped;
static uint64_t *counter = &unmapped;

__attribute__((constructor)) static void alloc_count_init(void) {
  const char *path = getenv("ALLOC_COUNT_FILE");
  if (path == NULL) return;
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  void *map = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (map != MAP_FAILED) counter = map;
}

static inline void count(void) { __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
  count();
  return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
  count();
  return __libc_realloc(p, size);
}

void *memalign(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  count();
  void *p = __libc_memalign(alignment, size);
  if (p == NULL) return 12;  // ENOMEM
  *out = p;
  return 0;
}

void *valloc(size_t size) {
  count();
  return __libc_valloc(size);
}
