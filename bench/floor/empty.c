/* The same as empty.swift in C: the libc floor. */
#include <unistd.h>
int main(int argc, char **argv) {
  (void)argv;
  if (argc < 2) pause();
  return 0;
}
