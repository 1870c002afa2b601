# exec_self: the program execs itself without forking. The image that
# follows is measured in DIR, as the program knit record ran; the first one
# in DIR/process-PID-image-1, whole, with its own SUMMARY.
pair "$dir/exec_self"
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
