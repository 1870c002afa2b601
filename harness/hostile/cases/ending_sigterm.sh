# ending_sigterm: the program sends itself SIGTERM while a second thread
# works. It ends as without knit (status 143), and every thread's data is
# written first.
pair "$dir/ending" term-self
[ "$rec_rc" -eq 143 ] || fail "status $rec_rc, not 143"
measured
samples_at_least 40
grep -q '^end: signal 15 (TERM)' "$M/knit.log" || fail "the log does not say the run ended by SIGTERM"
grep -q '^ended: by signal 15 (TERM)' "$tmp/report.txt" || fail "the report does not say how the run ended"
