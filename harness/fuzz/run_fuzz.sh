#!/usr/bin/env bash
# Runs one libFuzzer target from its seed corpus and says how far it got.
#   run_fuzz.sh NAME BINARY SEED_DIR
# The length of the run: FUZZ_RUNS executions or FUZZ_SECONDS seconds,
# whichever ends first (unset or 0: no limit); one of them must be set.
# New inputs go to a scratch copy of the corpus, never into the repository;
# a finding (crash, sanitizer report, leak, time-out) is kept in
# FUZZ_FINDINGS (default: ./fuzz-findings) and fails the run.
# A BINARY of "skip:REASON" skips (77): the build found no fuzzer runtime.
set -uo pipefail
name=$1 bin=$2 seeds=$3
runs=${FUZZ_RUNS:-0} seconds=${FUZZ_SECONDS:-0}
findings=${FUZZ_FINDINGS:-$PWD/fuzz-findings}

case "$bin" in
skip:*) echo "skip: ${bin#skip:}"; exit 77 ;;
esac
[ -x "$bin" ] || { echo "skip: $bin is not built"; exit 77; }
[ "$runs" != 0 ] || [ "$seconds" != 0 ] || { echo "run_fuzz: set FUZZ_RUNS or FUZZ_SECONDS"; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/knit-fuzz-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/artifacts"

start=$(date +%s.%N)
# -rss_limit_mb: the reader allocates only what a file's sections hold, so
# 2 GB is a finding; -timeout: one input taking 10 s is a hang.
# libFuzzer's "no limit" is -runs=-1 (0 would run the seeds alone).
[ "$runs" != 0 ] || runs=-1
"$bin" -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
corpus=$(find "$work/corpus" -type f | wc -l)

if [ $rc -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
  mkdir -p "$findings"
  cp "$work"/artifacts/* "$findings"/ 2>/dev/null
  grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$work/log" | head -n 20
  tail -n 40 "$work/log"
  echo "fuzz $name: FINDING after ${executions:-?} executions in $elapsed s (exit $rc); inputs kept in $findings"
  exit 1
fi
echo "fuzz $name: ${executions:-?} executions in $elapsed s, no finding" \
     "($(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1) per second," \
     "$corpus new inputs)"
