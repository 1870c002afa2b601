#!/usr/bin/env bash
# One case of the hostile-program suite (see CMakeLists.txt):
#   hostile_test.sh CASE KNIT PROGRAM_DIR
# The case's program runs twice: bare (`knit run`, unprofiled) and under
# `knit record`; its standard output and exit status must be the same, and
# the measurement must hold what the case says (by default: a SUMMARY with
# every thread's file written, and a report that reads it). KNIT_QEMU=1 runs
# both under QEMU (run_cross.sh points KNIT_LIBDIR at the other ISA's tree).
set -uo pipefail
case_name=$1 knit=$2 dir=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/knit-hostile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
qemu=()
[ "${KNIT_QEMU:-0}" = 1 ] && qemu=(--qemu)
EVENT=${EVENT:-REALTIME@f1000}
# The measurement directory: OUT is what -o is given (relative to $tmp,
# where both runs start, or absolute), M where checks look for it.
OUT=$tmp/m
M=$tmp/m

fail() { echo "FAIL: $*"; exit 1; }

# bare ARGS...: the program alone; its output in $tmp/bare.out, status $bare_rc.
bare() {
  (cd "$tmp" && "$knit" run --runtime=system "${qemu[@]}" -- "$@" >"$tmp/bare.out" 2>"$tmp/bare.err")
  bare_rc=$?
  echo "+ bare $* -> $bare_rc"
  sed 's/^/  | /' "$tmp/bare.out" "$tmp/bare.err"
}

# recorded ARGS...: the program under knit record -o $OUT; output in
# $tmp/rec.out, knit's and the program's stderr in $tmp/rec.err, status $rec_rc.
recorded() {
  (cd "$tmp" && "$knit" record -e "$EVENT" "${qemu[@]}" -o "$OUT" -- "$@" \
     >"$tmp/rec.out" 2>"$tmp/rec.err")
  rec_rc=$?
  echo "+ recorded $* -> $rec_rc"
  sed 's/^/  | /' "$tmp/rec.out" "$tmp/rec.err"
}

# same: the two runs' outputs and statuses are identical.
same() {
  [ "$bare_rc" -eq "$rec_rc" ] || fail "exit status $rec_rc under knit, $bare_rc without"
  cmp -s "$tmp/bare.out" "$tmp/rec.out" ||
    fail "output differs under knit: $(diff "$tmp/bare.out" "$tmp/rec.out" | head -20)"
}

# pair ARGS...: both runs, compared.
pair() {
  bare "$@"
  recorded "$@"
  same
}

# measured: the measurement is whole: a SUMMARY naming every thread's file
# written (or the thread empty: nothing measured, no file) and none
# unwritten, and a report that reads it.
measured() {
  local summary
  summary=$(grep '^SUMMARY ' "$M/knit.log" 2>/dev/null | tail -1)
  [ -n "$summary" ] || fail "no SUMMARY in $M/knit.log"
  echo "  $summary"
  grep -q ' unwritten=0 ' <<<"$summary" || fail "some thread's data was not written"
  local threads files empty
  threads=$(sed -E 's/.* threads=([0-9]+) .*/\1/' <<<"$summary")
  empty=$(sed -nE 's/.* empty=([0-9]+) .*/\1/p' <<<"$summary")
  files=$(ls "$M"/thread-*.knit 2>/dev/null | wc -l)
  [ $((files + ${empty:-0})) -eq "$threads" ] ||
    fail "$threads threads, $files thread files and ${empty:-0} empty threads"
  "$knit" report "$M" >"$tmp/report.txt" 2>&1 || fail "knit report failed: $(head "$tmp/report.txt")"
}

# samples_at_least N: the measurement holds at least N samples.
samples_at_least() {
  local n
  n=$(sed -nE 's/^SUMMARY samples=([0-9]+) .*/\1/p' "$M/knit.log" | tail -1)
  [ "${n:-0}" -ge "$1" ] || fail "${n:-0} samples, expected at least $1"
}

# The case itself: cases/CASE.sh, sourced here, uses the functions above.
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$here/cases/$case_name.sh" ] || fail "unknown case '$case_name'"
# shellcheck source=/dev/null
. "$here/cases/$case_name.sh"
echo "ok: $case_name"
