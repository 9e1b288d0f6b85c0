// LD_PRELOAD library for tests/double-close/run.sh: every close(2) that fails with EBADF
// is written to $CLOSETRACE_LOG with the program's path and a backtrace. A close of a
// number nobody holds is the visible half of a double close; the other half is the
// close that hit a descriptor someone had reopened meanwhile (issue 19: a test client's
// socket closed in init and again in deinit, and another test's connect() got EBADF).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_fd = -1;

static void open_log(void) {
  const char *path = getenv("CLOSETRACE_LOG");
  if (!path) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // Far from the numbers programs use, so no test sees it.
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
  syscall(SYS_close, fd);
  log_fd = high;
}

int close(int fd) {
  static int (*real_close)(int);
  if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  if (log_fd < 0) open_log();
  if (fd == log_fd && fd >= 0) {
    errno = EBADF;
    return -1;
  }
  int result = real_close(fd);
  if (result == -1 && errno == EBADF && fd >= 0 && log_fd >= 0) {
    int saved = errno;
    char exe[256] = "?";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 1] = 0;
    char line[512];
    int len = snprintf(line, sizeof line, "EBADF close(%d) in %s pid %d tid %ld\n", fd, exe,
                       getpid(), (long)syscall(SYS_gettid));
    (void)!write(log_fd, line, len);
    void *frames[32];
    int count = backtrace(frames, 32);
    for (int i = 1; i < count; i++) {
      Dl_info info;
      if (dladdr(frames[i], &info) && info.dli_fname) {
        len = snprintf(line, sizeof line, "  %s +0x%lx %s\n", info.dli_fname,
                       (unsigned long)((char *)frames[i] - (char *)info.dli_fbase),
                       info.dli_sname ? info.dli_sname : "");
      } else {
        len = snprintf(line, sizeof line, "  %p\n", frames[i]);
      }
      (void)!write(log_fd, line, len);
    }
    errno = saved;
  }
  return result;
}
