# ending_abort: abort() (a failed assertion) ends the program as without
# knit (status 134), the measurement written first.
pair "$dir/ending" abort
[ "$rec_rc" -eq 134 ] || fail "status $rec_rc, not 134"
measured
samples_at_least 40
