#!/usr/bin/env bash
# One golden run: record a workload with knit, then compare the measurement
# with its golden calling-context tree.
#
#   run_golden.sh KNIT EVENT RUNTIME QEMU GOLDEN -- PROGRAM [ARGS...]
#
# QEMU is 1 to run under qemu-<isa>, 0 natively. A PROBE run must also show
# 0 partial unwinds and 0 wrong unwind steps in its SUMMARY line.
# UPDATE_GOLDEN=1 rewrites the golden
# from this run instead of comparing (a changed golden is a reviewed change).
set -uo pipefail
knit=$1 event=$2 runtime=$3 qemu=$4 golden=$5
shift 5
[ "${1:-}" = "--" ] && shift
if [ "$qemu" = 1 ] && ! command -v qemu-x86_64 >/dev/null 2>&1; then
  echo "skip: qemu-user is not installed"
  exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/knit-golden.XXXXXX")
trap 'rm -rf "$dir"' EXIT
opts=(-e "$event" --runtime="$runtime" -o "$dir/m")
[ "$qemu" = 1 ] && opts+=(--qemu)
echo "+ knit record ${opts[*]} -- $*"
if ! "$knit" record "${opts[@]}" -- "$@"; then
  echo "FAIL: the workload failed under knit"
  exit 1
fi
summary=$(grep '^SUMMARY ' "$dir/m/knit.log" | tail -n 1)
if [ -z "$summary" ]; then
  echo "FAIL: no SUMMARY line in the log"
  cat "$dir/m/knit.log"
  exit 1
fi
if [ "$event" = PROBE ] && ! grep -q ' partial=0 ' <<<"$summary"; then
  echo "FAIL: a PROBE run must unwind every sample completely: $summary"
  "$knit" report --format=folded "$dir/m"
  exit 1
fi
if [ "$event" = PROBE ] && ! grep -q ' wrong=0 ' <<<"$summary"; then
  echo "FAIL: a PROBE run must make no wrong unwind step (one that follows no call): $summary"
  "$knit" report --steps --min=100 "$dir/m"
  exit 1
fi
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  exec "$knit" check --update "$dir/m" "$golden"
fi
"$knit" check "$dir/m" "$golden"
