/*
 * The C baseline of `make bench`: the least a PIN-entry daemon must do for the
 * benchmark's closed loop, written plainly in C, so that pinpadd's figures have
 * something to be divided by.
 *
 *   baseline serve SOCKET   keys from the terminal on stdin (raw mode, non-blocking);
 *                           the entry kept in memory; a Unix stream socket at SOCKET
 *                           with SO_PEERCRED checked on accept; the same lines as
 *                           pinpadd: hello on connect, entry started/changed per digit,
 *                           code on Enter, the verdict broadcast, status on request.
 *                           One epoll loop, one read per readable event, one write per
 *                           line per client. Exits on SIGTERM/SIGINT.
 *   baseline parse FILE     reads an evemu-record file (its "E: sec.usec type code
 *                           value" lines), feeds the key presses to the same entry
 *                           logic and prints how many codes it formed.
 *
 * Not a product: no lockout, no timers, no configuration. Built with cc -O2 by
 * bench/run.sh in the same run as the figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 4096
#define MAX_CODE 32

static char entry[MAX_CODE];
static int entry_len;
static int attempt;
static char pending_id[32];
static int clients[MAX_CLIENTS];
static int client_count;

static void send_all(const char *line, int len) {
  for (int i = 0; i < client_count; i++) (void)!write(clients[i], line, len);
}

static void entry_event(const char *event) {
  char line[128];
  int n = snprintf(line, sizeof line,
                   "{\"type\":\"entry\",\"keypad\":\"default\",\"event\":\"%s\",\"length\":%d}\n",
                   event, entry_len);
  send_all(line, n);
}

static void submit(void) {
  char line[256], at[40];
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(pending_id, sizeof pending_id, "%d", ++attempt);
  int n = snprintf(line, sizeof line,
                   "{\"type\":\"code\",\"id\":\"%s\",\"keypad\":\"default\",\"code\":\"%.*s\","
                   "\"at\":\"%s.%03ldZ\"}\n",
                   pending_id, entry_len, entry, at, ts.tv_nsec / 1000000);
  send_all(line, n);
  memset(line, 0, sizeof line);
  memset(entry, 0, sizeof entry);
  entry_len = 0;
}

/* One key: '0'..'9' a digit, '\n' Enter. Returns 1 when a code was formed. */
static int key(char k) {
  if (k >= '0' && k <= '9') {
    if (entry_len == MAX_CODE || pending_id[0]) return 0;
    entry[entry_len++] = k;
    if (client_count) entry_event(entry_len == 1 ? "started" : "changed");
    return 0;
  }
  if (k == '\n' && entry_len >= 4 && !pending_id[0]) {
    if (client_count) submit();
    else {
      memset(entry, 0, sizeof entry);
      entry_len = 0;
    }
    return 1;
  }
  return 0;
}

static void client_line(int fd, char *line) {
  if (strstr(line, "\"type\":\"status\"")) {
    char out[512];
    int n = snprintf(out, sizeof out,
                     "{\"type\":\"status\",\"version\":\"0.1.0\",\"protocol\":1,\"clients\":%d,"
                     "\"keypads\":[{\"name\":\"default\",\"phase\":\"%s\",\"attempts_left\":5,"
                     "\"locked_seconds\":0}]}\n",
                     client_count, pending_id[0] ? "checking" : "idle");
    (void)!write(fd, out, n);
    return;
  }
  char *id = strstr(line, "\"id\":\"");
  if (strstr(line, "\"type\":\"verdict\"") && id && pending_id[0]) {
    id += 6;
    char *end = strchr(id, '"');
    if (!end || (size_t)(end - id) != strlen(pending_id) || memcmp(id, pending_id, end - id)) {
      const char *e = "{\"type\":\"error\",\"reason\":\"unknown id\"}\n";
      (void)!write(fd, e, strlen(e));
      return;
    }
    const char *result = strstr(line, "\"granted\"") ? "granted" : "denied";
    char out[128];
    int n = snprintf(out, sizeof out, "{\"type\":\"verdict\",\"id\":\"%s\",\"result\":\"%s\"}\n",
                     pending_id, result);
    send_all(out, n);
    pending_id[0] = 0;
  }
}

static int serve(const char *path) {
  struct termios raw;
  if (tcgetattr(0, &raw) == 0) {
    cfmakeraw(&raw);
    tcsetattr(0, TCSANOW, &raw);
  }
  fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  signal(SIGPIPE, SIG_IGN);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC);

  int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  unlink(path);
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) || listen(lfd, 128)) {
    perror("baseline: socket");
    return 1;
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN};
  ev.data.fd = 0;
  epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
  ev.data.fd = lfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  ev.data.fd = sfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);

  static char inbuf[MAX_CLIENTS][4097];
  static int inlen[MAX_CLIENTS];
  for (;;) {
    struct epoll_event events[64];
    int n = epoll_wait(ep, events, 64, -1);
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == sfd) {
        unlink(path);
        return 0;
      } else if (fd == lfd) {
        int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0) continue;
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0 ||
            client_count == MAX_CLIENTS || c >= MAX_CLIENTS) {
          close(c);
          continue;
        }
        clients[client_count++] = c;
        inlen[c] = 0;
        const char *hello = "{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.1.0\"}\n";
        (void)!write(c, hello, strlen(hello));
        ev.data.fd = c;
        epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
      } else if (fd == 0) {
        char keys[256];
        ssize_t r = read(0, keys, sizeof keys);
        for (ssize_t k = 0; k < r; k++) key(keys[k] == '\r' ? '\n' : keys[k]);
        memset(keys, 0, sizeof keys);
      } else {
        ssize_t r = read(fd, inbuf[fd] + inlen[fd], 4096 - inlen[fd]);
        if (r <= 0) {
          if (r < 0 && errno == EAGAIN) continue;
          for (int k = 0; k < client_count; k++)
            if (clients[k] == fd) clients[k] = clients[--client_count];
          close(fd);
          continue;
        }
        inlen[fd] += r;
        inbuf[fd][inlen[fd]] = 0;
        char *start = inbuf[fd], *nl;
        while ((nl = strchr(start, '\n'))) {
          *nl = 0;
          client_line(fd, start);
          start = nl + 1;
        }
        inlen[fd] -= start - inbuf[fd];
        memmove(inbuf[fd], start, inlen[fd]);
      }
    }
  }
}

/* One "E: 0.016000 0001 004f 0001" line: seconds.micros, type and code in hex, value
 * in decimal. Returns 1 when a code was formed. */
static long events;
static int event_line(const char *p, const char *end) {
  static const char digit_of[128] = {
      [2] = '1', [3] = '2', [4] = '3', [5] = '4', [6] = '5', [7] = '6', [8] = '7', [9] = '8',
      [10] = '9', [11] = '0', [79] = '1', [80] = '2', [81] = '3', [75] = '4', [76] = '5',
      [77] = '6', [71] = '7', [72] = '8', [73] = '9', [82] = '0', [28] = '\n', [96] = '\n'};
  if (end - p < 2 || p[0] != 'E' || p[1] != ':') return 0;
  p += 2;
  unsigned long field[3] = {0, 0, 0};
  while (p < end && *p == ' ') p++;
  while (p < end && ((*p >= '0' && *p <= '9') || *p == '.')) p++; /* the time */
  for (int f = 0; f < 3; f++) {
    const char *start;
    while (p < end && *p == ' ') p++;
    start = p;
    for (; p < end; p++) {
      int c = *p, d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (f < 2 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else break;
      field[f] = field[f] * (f < 2 ? 16 : 10) + d;
    }
    if (p == start) return 0;
  }
  events++;
  if (field[0] == 1 && field[2] == 1 && field[1] < 128 && digit_of[field[1]])
    return key(digit_of[field[1]]);
  return 0;
}

/* Streams the file through a 64 KiB buffer, line by line. */
static int parse(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    perror("baseline: parse");
    return 1;
  }
  static char buf[65536];
  size_t have = 0;
  long codes = 0;
  for (;;) {
    ssize_t r = read(fd, buf + have, sizeof buf - have);
    if (r <= 0) break;
    have += r;
    char *line = buf, *nl, *stop = buf + have;
    while ((nl = memchr(line, '\n', stop - line))) {
      codes += event_line(line, nl);
      line = nl + 1;
    }
    have = stop - line;
    memmove(buf, line, have);
    if (have == sizeof buf) have = 0; /* an over-long line: dropped */
  }
  close(fd);
  /* The peak resident memory of this exec'd image (wait4's ru_maxrss counts the
   * parent's too, from before exec). */
  char status[4096];
  int sfd = open("/proc/self/status", O_RDONLY);
  ssize_t n = sfd < 0 ? 0 : read(sfd, status, sizeof status - 1);
  status[n > 0 ? n : 0] = 0;
  char *hwm = strstr(status, "VmHWM:");
  printf("%ld events, %ld codes, peak %ld kB\n", events, codes, hwm ? strtol(hwm + 6, NULL, 10) : 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "serve")) return serve(argv[2]);
  if (argc == 3 && !strcmp(argv[1], "parse")) return parse(argv[2]);
  fprintf(stderr, "usage: baseline serve SOCKET | baseline parse FILE\n");
  return 64;
}
