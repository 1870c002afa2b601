# exec_fails: the program execs a file the kernel refuses (executable, but
# not a program), after knit wrote the image's data for the exec: the write
# is undone, and the image that goes on is measured whole in DIR, its work
# before and after the exec.
pair "$dir/exec_self" bad "$tmp/not-a-program"
grep -qx 'exec refused' "$tmp/rec.out" || fail "the exec did not fail"
measured
! ls -d "$M"/process-*-image-* >/dev/null 2>&1 || fail "an image directory for an exec that failed"
"$knit" report --format=folded "$M" >"$tmp/folded" || fail "no report"
grep -q work_first "$tmp/folded" || fail "the work before the exec is lost"
grep -q work_second "$tmp/folded" || fail "the work after the failed exec is not measured"
grep -q 'failed (errno 8): the image goes on' "$M/knit.log" || fail "the log does not say the exec failed"
