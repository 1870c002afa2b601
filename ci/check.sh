#!/usr/bin/env bash
# The whole test suite: the native tree (unit tests, mock runtime tests,
# golden runs natively and under qemu-x86_64), then the aarch64, ppc64le and
# ppc64 trees, whose tests run under QEMU. Ends with one line of counts.
#   ci/check.sh BUILD_DIR JOBS
set -uo pipefail
build=${1:-build}
jobs=${2:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build"
start=$(date +%s)
passed=0 failed=0 skipped=0
failures=()

# Every tree is built before any test runs: the native tree's golden runs
# for the other ISAs use those trees' libknit.so and workloads.
build_tree() {
  local target=$1
  echo "== $target: build"
  if ! bash "$src/ci/build.sh" "$target" "$build" "$jobs" >"$build/build-$target.log" 2>&1; then
    tail -n 40 "$build/build-$target.log"
    echo "== $target: BUILD FAILED (log: $build/build-$target.log)"
    failed=$((failed + 1))
    failures+=("$target: build")
    return 1
  fi
}

test_tree() {
  local target=$1
  echo "== $target: test"
  local log="$build/test-$target.log"
  (cd "$build/$target" && ctest -j "$jobs" --output-on-failure) >"$log" 2>&1
  grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" || true
  local p f s
  p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#.* Passed' "$log")
  s=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#.*(Skipped|Not Run)' "$log")
  f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#' "$log")
  f=$((f - p - s))
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" -gt 0 ]; then
    failures+=("$target: $f test(s), see $log")
    sed -n '/The following tests FAILED/,$p' "$log"
  fi
}

built=()
for t in native aarch64 ppc64le ppc64; do
  build_tree "$t" && built+=("$t")
done
for t in "${built[@]}"; do
  test_tree "$t"
done

# The conformance reports the native tree's tests wrote (docs/conform.md).
if [ -d "$build/native/reports" ]; then
  rm -rf "$build/reports"
  cp -r "$build/native/reports" "$build/reports"
  echo "check: conformance reports in $build/reports (summary: $build/reports/summary.md)"
fi

echo
echo "check: took $(( $(date +%s) - start )) s"
for f in "${failures[@]+"${failures[@]}"}"; do echo "check: failed: $f"; done
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
