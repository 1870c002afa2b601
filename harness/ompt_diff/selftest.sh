#!/bin/sh
# selftest.sh BUILD_DIR: the runner catches what it is for.  On one
# program and mock (locks, mock-intel):
#   - the lists as they are: pass;
#   - an entry of known_gaps.txt left out (the first of locks that alone
#     explains a line): fail, naming a new difference;
#   - an entry for a difference that does not occur: fail, naming the gap
#     that no longer occurs;
#   - intended.txt left out on mock-intel: fail (the shepherd thread), and
#     on mock-pgi (frames off the thread's stack, the cactus stack).
# Exit 0 when each verdict is the expected one, 77 when the runner skips.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: selftest.sh BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
runtime=mock-intel
run() {
  "$here/run_diff.sh" --build "$build" --program locks --runtime $runtime "$@" >"$tmp/out" 2>&1
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

# An entry of locks on mock-intel left out: the first of them that alone
# explains some line (entries may overlap, and the list shrinks as the
# mocks are fixed, so no entry is named here).
n=0
found=0
while IFS= read -r entry; do
  n=$((n + 1))
  case $entry in
  '#'* | '') continue ;;
  esac
  progs=$(printf '%s' "$entry" | awk -F ' ;; ' '{print $1}')
  rts=$(printf '%s' "$entry" | awk -F ' ;; ' '{print $2}')
  case ",$progs," in *,locks,*) ;; *) continue ;; esac
  case ",$rts," in *,mock-intel,*) ;; *) continue ;; esac
  sed "${n}d" "$here/known_gaps.txt" >"$tmp/fewer"
  run --gaps "$tmp/fewer"
  if [ "$rc" = 1 ] && grep -q "that neither intended.txt nor known_gaps.txt explains" "$tmp/out"; then
    found=1
    break
  fi
done <"$here/known_gaps.txt"
if [ "$found" = 1 ]; then
  echo "ok: a gap left out is a new difference"
else
  echo "FAIL: no entry of locks on mock-intel, left out, gave a new difference"
  fail=1
fi

cp "$here/known_gaps.txt" "$tmp/more"
echo 'locks ;; mock-intel ;; ^[-+]\S+ +no_such_event ;; a gap that was fixed' >>"$tmp/more"
run --gaps "$tmp/more"
expect 1 "known gap no longer occurs" "a gap that no longer occurs"

: >"$tmp/none"
run --intended "$tmp/none"
expect 1 "thread_begin other" "the shepherd thread without intended.txt"
runtime=mock-pgi
run --intended "$tmp/none"
expect 1 "=off-stack/" "the cactus stack without intended.txt"
exit $fail
