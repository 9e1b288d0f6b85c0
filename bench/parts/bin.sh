# Sourced (not run: it is not executable, so bench/run.sh passes over it) by a bench
# part, from the repository root: BENCH_BIN is the release binaries' folder, which
# bench/run.sh sets (`make bench` built them); a part run alone builds them the
# Makefile's way first.
if [ -z "${BENCH_BIN:-}" ]; then
  make -s --no-print-directory release >&2
  BENCH_BIN=.build/release
fi
