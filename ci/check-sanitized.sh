#!/usr/bin/env bash
# The native test suite under sanitizers, in a tree of its own:
#   ci/check-sanitized.sh asan|tsan BUILD_DIR JOBS
# asan: AddressSanitizer and UndefinedBehaviorSanitizer (leaks included);
# tsan: ThreadSanitizer, on the unit and mock-runtime tests (below). They instrument knit's own code (the profiler, the
# mock runtimes, the unit, mock-runtime and conformance programs); the
# workloads and hostile programs stay uninstrumented, with the instrumented
# libknit.so and mocks loaded into them (CMakeLists.txt, KNIT_SANITIZE).
# Left out: the runs under QEMU and the other ISAs' trees (QEMU does not
# run the sanitizers' runtimes), the matrix and the benchmarks (they
# measure time, which instrumentation changes). Tests that cannot run under
# a sanitizer skip themselves (77) and say why.
#
# Every report a sanitizer writes, in whichever process, lands in
# BUILD_DIR/<kind>/sanitizer-reports: a report fails the run even where a
# test does not look at the exit status of the process that wrote it.
# Ends with one line of counts, as ci/check.sh does.
set -uo pipefail
kind=${1:?usage: check-sanitized.sh asan|tsan BUILD_DIR JOBS}
build=${2:-build}
jobs=${3:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
case "$kind" in
  asan) sanitize=address,undefined ;;
  tsan) sanitize=thread ;;
  *) echo "check-sanitized: asan or tsan, not $kind" >&2; exit 2 ;;
esac
start=$(date +%s)
mkdir -p "$build"
build=$(cd "$build" && pwd)
dir="$build/$kind"

echo "== $kind: build"
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKNIT_SANITIZE="$sanitize" \
    >"$build/configure-$kind.log" 2>&1 || {
    cat "$build/configure-$kind.log" >&2
    echo "check-$kind: configuring failed"
    exit 1
  }
fi
if ! cmake --build "$dir" -j "$jobs" >"$build/build-$kind.log" 2>&1; then
  tail -n 40 "$build/build-$kind.log"
  echo "check-$kind: BUILD FAILED (log: $build/build-$kind.log)"
  exit 1
fi

reports="$dir/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
common="log_path=$reports/$kind:print_stacktrace=1"
export KNIT_SANITIZED=$kind
# halt_on_error: the first report ends the process, so it cannot be missed.
export UBSAN_OPTIONS="$common:halt_on_error=1"
# handle_segv/handle_sigbus=0: faults are the programs' (crash, unreadable)
# and knit's fault guard's to handle, as they are without a sanitizer; a
# fault knit does not recover still ends the test. intercept_tls_get_addr=0:
# LeakSanitizer misreads dynamic TLS with this glibc and its tracer crashes
# at exit in any program whose threads use a dlopen'ed module's TLS, knit
# or not (google/sanitizers#1322).
export ASAN_OPTIONS="$common:detect_leaks=1:fast_unwind_on_malloc=0:handle_segv=0:handle_sigbus=0:intercept_tls_get_addr=0"
export LSAN_OPTIONS="suppressions=$src/ci/lsan.supp"
export TSAN_OPTIONS="$common:halt_on_error=1:suppressions=$src/ci/tsan.supp"

echo "== $kind: test"
log="$build/test-$kind.log"
# Under TSan, the unit tests and the mock runtimes' own tests: the runs of
# knit in programs (cli, golden, conform, hostile) took over the 900 s
# timeout each under TSan (which also holds asynchronous signals back to
# points of its own, so sampling is not what it is without it), and every
# run on a real runtime reports that runtime's synchronization, which TSan
# cannot see, as races.
select=(-LE qemu -E '\.(aarch64|ppc64le|qemu)$|^matrix\.')
[ "$kind" = tsan ] && select=(-L '^(unit|mockrt)$')
(cd "$dir" && ctest -j "$jobs" --output-on-failure "${select[@]}") >"$log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" || true
passed=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#.* Passed' "$log")
skipped=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#.*(Skipped|Not Run)' "$log")
failed=$(( $(grep -cE '^ *[0-9]+/[0-9]+ Test +#' "$log") - passed - skipped ))
[ "$failed" -gt 0 ] && sed -n '/The following tests FAILED/,$p' "$log"

# A file that holds only LeakSanitizer's "Suppressions used" table is not
# a report.
report_files=$(grep -lE 'ERROR:|WARNING:|runtime error' "$reports"/* 2>/dev/null)
found=$(grep -c . <<<"$report_files")
if [ "$found" -gt 0 ]; then
  echo
  echo "check-$kind: $found sanitizer report(s) in $reports; the first lines of each:"
  for f in $report_files; do
    echo "-- $f"
    grep -m 1 -E 'ERROR|WARNING|runtime error' "$f"
    grep -m 4 -E '^ +#[0-9]+ ' "$f"
  done
  failed=$((failed + found))
fi

echo
echo "check-$kind: took $(( $(date +%s) - start )) s"
echo "check-$kind: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
