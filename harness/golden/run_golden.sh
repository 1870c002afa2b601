#!/usr/bin/env bash
# One golden run: record a workload with knit, then compare the measurement
# with its golden calling-context tree.
#
#   run_golden.sh KNIT EVENT RUNTIME QEMU GOLDEN -- PROGRAM [ARGS...]
#
# QEMU is 1 to run under qemu-<isa>, 0 natively. A PROBE run must also show
# 0 partial unwinds and 0 wrong unwind steps in its SUMMARY line; and in
# any run checked with KNIT_CHECK_CAPTURES=1, no region path knit remembered
# may differ from the one a walk gives.
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
# A timed golden checks shares of time. On a real runtime under a sanitizer
# (make check-asan, check-tsan) the sanitizer's runtime takes the runtime's
# malloc, printf and TLS look-ups, and its own time moves the shares: the
# PROBE goldens, exact, and the timed ones on the mocks still run.
case "$event:$runtime" in
  PROBE:*|*:mock-*) ;;
  *) if [ -n "${KNIT_SANITIZED:-}" ]; then
       echo "skip: $KNIT_SANITIZED's runtime moves the shares of time on runtime $runtime"
       exit 77
     fi ;;
esac
# The PGI mock switches to its stack segments by hand and does not tell
# ASan (__sanitizer_start_switch_fiber): ASan's view of the stacks is then
# wrong, and it reports overflows of stale redzones.
if [ "$runtime" = mock-pgi ] && [ "${KNIT_SANITIZED:-}" = asan ]; then
  echo "skip: the mock-pgi stack switch is not announced to ASan"
  exit 77
fi
# An offloading program (it needs libomptarget.so) runs on a mock only where
# the mock brings its device, beside its libomp.
if [[ $runtime == mock-* ]] && readelf -d "$1" 2>/dev/null | grep -q 'NEEDED.*\[libomptarget\.so\]'; then
  device=$(dirname "$knit")/../lib/$runtime/libomptarget.so
  if [ ! -e "$device" ]; then
    echo "skip: $runtime brings no target device (no $device)"
    exit 77
  fi
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
# With KNIT_CHECK_CAPTURES=1, every region path knit took from its capture
# cache was walked for too: the log says how many differed, and none may.
for log in "$dir"/m/knit.log "$dir"/m/process-*/knit.log; do
  [ -f "$log" ] || continue
  captures=$(grep '^captures: walked=' "$log" | tail -n 1)
  if [ -n "$captures" ] && ! grep -q ' differed=0$' <<<"$captures"; then
    echo "FAIL: a remembered region path is not the one a walk gives: $captures ($log)"
    exit 1
  fi
  [ -n "$captures" ] && echo "  ${log#"$dir"/m/}: $captures"
done
# Processes the program started and exec'ed have measurements of their own
# (process-PID directories): each is checked against GOLDEN's sibling
# NAME.exec.folded, which must then exist, and which asks for at least one.
exec_golden=${golden%.folded}.exec.folded
procs=()
for p in "$dir"/m/process-*; do [ -d "$p" ] && procs+=("$p"); done
if [ ${#procs[@]} -gt 0 ] && [ ! -f "$exec_golden" ]; then
  echo "FAIL: the program started ${#procs[@]} measured process(es), and there is no $exec_golden"
  exit 1
fi
if [ -f "$exec_golden" ] && [ ${#procs[@]} -eq 0 ]; then
  echo "FAIL: $exec_golden expects an exec'ed process, and none was measured"
  exit 1
fi
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  for p in "${procs[@]+"${procs[@]}"}"; do "$knit" check --update "$p" "$exec_golden" || exit 1; done
  exec "$knit" check --update "$dir/m" "$golden"
fi
rc=0
for p in "${procs[@]+"${procs[@]}"}"; do
  summary=$(grep '^SUMMARY ' "$p/knit.log" | tail -n 1)
  if [ "$event" = PROBE ] && ! grep -q ' partial=0 .* wrong=0 ' <<<"$summary"; then
    echo "FAIL: exec'ed process $p: a PROBE run must unwind completely, with no wrong step: $summary"
    rc=1
  fi
  echo "+ knit check ${p#"$dir"/m/} (exec'ed) against ${exec_golden##*/}"
  "$knit" check "$p" "$exec_golden" || rc=1
done
"$knit" check "$dir/m" "$golden" || rc=1
exit $rc
