# blocked_work: work done with every signal blocked is charged to that
# work, not to the pthread_sigmask call that unblocks them (knit keeps its
# sample signal out of the program's blocked sets, and answers the program
# as if it were in).
pair "$dir/blocked_work"
measured
samples_at_least 100
# 0.4 s of work is done blocked, 0.1 s unblocked, both timed by the clock
# on the wall, as REALTIME is: the first must have about four times the
# second's time, whatever else the run spent (a loaded machine, QEMU's
# start); without the fix it all went to pthread_sigmask.
share_of() {
  awk -v f="$1" '$4 ~ "^" f && $2 ~ /%$/ { sub("%", "", $2); print int($2); exit }' "$tmp/report.txt"
}
blocked=$(share_of work_while_blocked) unblocked=$(share_of work_unblocked)
unblock=$(share_of pthread_sigmask)
echo "  work_while_blocked: ${blocked:-0}%, work_unblocked: ${unblocked:-0}%, pthread_sigmask: ${unblock:-0}%"
[ "${blocked:-0}" -ge $((2 * ${unblocked:-0})) ] && [ "${blocked:-0}" -gt 0 ] && [ "${unblock:-0}" -le 5 ] ||
  fail "the work done while blocked is not where its time is: $(head -20 "$tmp/report.txt")"
