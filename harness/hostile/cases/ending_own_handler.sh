# ending_own_handler: the program's own SIGINT actions (a handler, ignored,
# the default) work and are reported back to it as without knit; the
# default it set last ends it (status 130), the measurement written first.
pair "$dir/ending" own-handler
[ "$rec_rc" -eq 130 ] || fail "status $rec_rc, not 130"
grep -qx 'caught 1, now: handler' "$tmp/rec.out" || fail "the program's handler did not run"
measured
