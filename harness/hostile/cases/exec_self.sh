# exec_self: the program execs itself without forking. The image that
# follows is measured in DIR, as the program knit record ran; the first one
# in DIR/process-PID-image-1, whole, with its own SUMMARY.
pair "$dir/exec_self"
if [ "${KNIT_QEMU:-0}" = 1 ]; then
  # QEMU user mode (without binfmt_misc) cannot exec another guest program:
  # the exec fails with ENOEXEC, with knit as without it, and the image
  # that goes on is measured whole in DIR.
  grep -q 'Exec format error' "$tmp/rec.err" || fail "the exec under QEMU did not fail as expected"
  measured
  ! ls -d "$M"/process-*-image-* >/dev/null 2>&1 || fail "an image directory for an exec that failed"
  "$knit" report --format=folded "$M" | grep -q work_first || fail "the image's work is not in $M"
  return 0
fi
measured
"$knit" report --format=folded "$M" >"$tmp/second" || fail "no report of the second image"
grep -q 'work_second' "$tmp/second" || fail "the second image's work is not in $M"
first=$(ls -d "$M"/process-*-image-1 2>/dev/null | head -1)
[ -n "$first" ] || fail "no directory for the first image"
M=$first measured
"$knit" report --format=folded "$first" >"$tmp/first" || fail "no report of the first image"
grep -q 'work_first' "$tmp/first" || fail "the first image's work is not in $first"
! grep -q 'work_second' "$tmp/first" || fail "the second image's work is in the first's directory"
grep -q 'another image' "$tmp/rec.err" || fail "knit record does not name the first image's directory"
