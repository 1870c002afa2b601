#!/bin/sh
# selftest.sh BUILD_DIR: the runner catches what it is for.  On one
# program and mock (locks, mock-intel):
#   - the lists as they are: pass;
#   - an entry of known_gaps.txt left out (the first on mock-intel that
#     alone explains a line of its first program): fail, naming a new
#     difference;
#   - an entry for a difference that does not occur: fail, naming the gap
#     that no longer occurs;
#   - the shepherd's entry of intended.txt left out on mock-intel: fail,
#     and all of intended.txt on mock-pgi (frames off the thread's stack,
#     the cactus stack);
#   - entries qualified with an ISA (RUNTIME@ISA) apply on that ISA only:
#     that entry qualified with another ISA than the tree's is left out
#     (fail), with the ISA the run names it counts (pass); a
#     qualified gap that does not occur fails on its ISA only.
# Exit 0 when each verdict is the expected one, 77 when the runner skips.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: selftest.sh BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
runtime=mock-intel
program=locks
run() {
  "$here/run_diff.sh" --build "$build" --program $program --runtime $runtime "$@" >"$tmp/out" 2>&1
  rc=$?
}
run
if [ "$rc" = 77 ]; then
  cat "$tmp/out"
  exit 77
fi
fail=0
expect() { # expect RC TEXT WHAT
  if [ "$rc" != "$1" ] || ! grep -q -e "$2" "$tmp/out"; then
    echo "FAIL: $3: exit $rc, expected $1 and \"$2\"; output:"
    tail -20 "$tmp/out"
    fail=1
  else
    echo "ok: $3"
  fi
}
expect 0 PASS "the lists as they are"

# An entry on mock-intel left out: the first of them that alone explains
# some line of its first program (entries may overlap, and the list
# shrinks as the mocks are fixed, so no entry is named here).
n=0
found=0
while IFS= read -r entry; do
  n=$((n + 1))
  case $entry in
  '#'* | '') continue ;;
  esac
  progs=$(printf '%s' "$entry" | awk -F ' ;; ' '{print $1}')
  rts=$(printf '%s' "$entry" | awk -F ' ;; ' '{print $2}')
  case ",$rts," in *,mock-intel,*) ;; *) continue ;; esac
  program=${progs%%,*}
  sed "${n}d" "$here/known_gaps.txt" >"$tmp/fewer"
  run --gaps "$tmp/fewer"
  if [ "$rc" = 1 ] && grep -q "that neither intended.txt nor known_gaps.txt explains" "$tmp/out"; then
    found=1
    break
  fi
done <"$here/known_gaps.txt"
# That entry and its program serve the ISA qualifiers' checks below.
gap_line=$n
gap_program=$program
program=locks
if [ "$found" = 1 ]; then
  echo "ok: a gap left out is a new difference"
else
  echo "FAIL: no entry on mock-intel, left out, gave a new difference"
  fail=1
fi

cp "$here/known_gaps.txt" "$tmp/more"
echo 'locks ;; mock-intel ;; ^[-+]\S+ +no_such_event ;; a gap that was fixed' >>"$tmp/more"
run --gaps "$tmp/more"
expect 1 "known gap no longer occurs" "a gap that no longer occurs"

# The shepherd's entry alone left out (with none at all, the report's
# first lines are other intended differences).
grep -v "the shepherd thread" "$here/intended.txt" >"$tmp/no_shepherd"
run --intended "$tmp/no_shepherd"
expect 1 "thread_begin other" "the shepherd thread without its entry in intended.txt"
: >"$tmp/none"
runtime=mock-pgi
run --intended "$tmp/none"
expect 1 "=off-stack/" "the cactus stack without intended.txt"

# ISA qualifiers.  "selftest-isa" is no tree's ISA; --isa makes a run one.
runtime=mock-intel
program=$gap_program
awk -F ' ;; ' -v OFS=' ;; ' -v line="$gap_line" \
  'NR == line { $2 = "mock-pgi,mock-intel@selftest-isa" } { print }' \
  "$here/known_gaps.txt" >"$tmp/qualified"
run --gaps "$tmp/qualified"
expect 1 "that neither intended.txt nor known_gaps.txt explains" "a gap qualified with another ISA does not apply"
run --gaps "$tmp/qualified" --isa selftest-isa
expect 0 PASS "a gap qualified with the run's ISA applies"
cp "$here/known_gaps.txt" "$tmp/more"
echo "$gap_program ;; mock-intel@selftest-isa ;; ^[-+]\\S+ +no_such_event ;; a gap of one ISA that was fixed" >>"$tmp/more"
run --gaps "$tmp/more"
expect 0 PASS "a gap of another ISA is not looked for"
run --gaps "$tmp/more" --isa selftest-isa
expect 1 "known gap no longer occurs" "a gap of the run's ISA that no longer occurs"
exit $fail
