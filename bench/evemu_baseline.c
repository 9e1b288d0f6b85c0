/* The C baseline for the replay parser (bench/replay.sh): reads an evemu-record file
 * in 64 KiB chunks with read(2) and parses it with the same rules as the Swift parser
 * (EvemuParser): the same skipped lines, the same field checks, times relative to the
 * first event and never going backwards. Prints the events, a checksum of them (the
 * Swift bench prints the same one) and the CPU time the read and parse took, in
 * microseconds.
 * Usage: evemu_baseline FILE */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINE 65536
#define MAX_SECONDS (INT64_MAX / 1000000000 - 1)

static long line_no;
static int have_first;
static int64_t first_ns, previous_ns;
static uint64_t events, checksum;

static void fail(const char *message) {
  fprintf(stderr, "line %ld: %s\n", line_no, message);
  exit(1);
}

static int blank(unsigned char c) { return c == ' ' || (c >= 9 && c <= 13); }

static int timestamp(const unsigned char *s, const unsigned char *e, int64_t *out) {
  const unsigned char *q = s;
  int64_t seconds = 0, fraction = 0;
  while (q < e && *q >= '0' && *q <= '9') {
    if (q - s >= 12) return 0;
    seconds = seconds * 10 + (*q++ - '0');
  }
  if (q == s) return 0;
  if (q < e) {
    if (*q++ != '.') return 0;
    const unsigned char *f = q;
    while (q < e && *q >= '0' && *q <= '9') {
      if (q - f >= 9) return 0;
      fraction = fraction * 10 + (*q++ - '0');
    }
    if (q != e || q == f) return 0;
    for (long n = q - f; n < 9; n++) fraction *= 10;
  }
  if (seconds > MAX_SECONDS) fail("time past the largest one");
  *out = seconds * 1000000000 + fraction;
  return 1;
}

static int hex(const unsigned char *s, const unsigned char *e, unsigned *out) {
  if (e - s < 1 || e - s > 4) return 0;
  unsigned v = 0;
  for (; s < e; s++) {
    unsigned char c = *s;
    unsigned d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return 0;
    v = v << 4 | d;
  }
  *out = v;
  return 1;
}

static int decimal(const unsigned char *s, const unsigned char *e, int32_t *out) {
  int negative = 0;
  if (s < e && (*s == '-' || *s == '+')) negative = *s++ == '-';
  if (s == e) return 0;
  int64_t m = 0;
  for (; s < e; s++) {
    if (*s < '0' || *s > '9') return 0;
    m = m * 10 + (*s - '0');
    if (m > 2147483648LL) return 0;
  }
  if (negative) m = -m;
  if (m > INT32_MAX || m < INT32_MIN) return 0;
  *out = (int32_t)m;
  return 1;
}

static void parse_line(const unsigned char *p, long n) {
  line_no++;
  long k = 0;
  while (k < n) {
    if (blank(p[k])) k++;
    else if (p[k] == 0xEF && k + 2 < n && p[k + 1] == 0xBB && p[k + 2] == 0xBF) k += 3;
    else break;
  }
  if (k == n || p[k] == '#') return;
  if (k + 1 >= n || p[k + 1] != ':') fail("not an evemu-record line");
  if (strchr("NIPBALS", p[k]) && p[k]) return;
  if (p[k] != 'E') fail("not an evemu-record line");
  const unsigned char *q = p + k + 2, *end = q;
  while (end < p + n && *end != '#') end++;
  const unsigned char *fs[4], *fe[4];
  int fields = 0;
  for (;;) {
    while (q < end && blank(*q)) q++;
    if (q == end) break;
    const unsigned char *s = q;
    while (q < end && !blank(*q)) q++;
    if (fields < 4) fs[fields] = s, fe[fields] = q;
    fields++;
  }
  if (fields != 4) fail("an E: line needs 4 fields");
  int64_t ns;
  unsigned type, code;
  int32_t value;
  if (!timestamp(fs[0], fe[0], &ns)) fail("not a timestamp");
  if (!hex(fs[1], fe[1], &type)) fail("bad type");
  if (!hex(fs[2], fe[2], &code)) fail("bad code");
  if (!decimal(fs[3], fe[3], &value)) fail("bad value");
  if (have_first) {
    if (ns < previous_ns) fail("time goes backwards");
  } else {
    have_first = 1;
    first_ns = ns;
  }
  previous_ns = ns;
  events++;
  checksum = checksum * 31 + (uint64_t)(ns - first_ns) + type * 7 + code * 13 + (uint32_t)value;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: evemu_baseline FILE\n");
    return 64;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    perror(argv[1]);
    return 66;
  }
  static unsigned char chunk[65536];
  static unsigned char carry[MAX_LINE + 1];
  long carried = 0;
  ssize_t got;
  while ((got = read(fd, chunk, sizeof chunk)) > 0) {
    long i = 0;
    if (carried) {
      long j = 0;
      while (j < got && chunk[j] != '\n') j++;
      if (carried + j > MAX_LINE) fail("line too long");
      memcpy(carry + carried, chunk, j);
      carried += j;
      if (j == got) continue;
      parse_line(carry, carried);
      carried = 0;
      i = j + 1;
    }
    while (i < got) {
      long j = i;
      while (j < got && chunk[j] != '\n') j++;
      if (j - i > MAX_LINE) fail("line too long");
      if (j == got) {
        memcpy(carry, chunk + i, j - i);
        carried = j - i;
        break;
      }
      parse_line(chunk + i, j - i);
      i = j + 1;
    }
  }
  if (got < 0) {
    perror(argv[1]);
    return 74;
  }
  if (carried) parse_line(carry, carried);
  close(fd);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  long us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
  printf("%llu %llu %ld\n", (unsigned long long)events, (unsigned long long)checksum, us);
  return 0;
}
