# blocked_work: work done with every signal blocked is charged to that
# work, not to the pthread_sigmask call that unblocks them (knit keeps its
# sample signal out of the program's blocked sets, and answers the program
# as if it were in).
pair "$dir/blocked_work"
measured
samples_at_least 300
# Of about 0.5 s of work, 0.4 s is done blocked (less under a loaded
# machine, REALTIME counting the waits too); without the fix it all went to
# pthread_sigmask.
share_of() {
  awk -v f="$1" '$4 ~ "^" f && $2 ~ /%$/ { sub("%", "", $2); print int($2); exit }' "$tmp/report.txt"
}
share=$(share_of work_while_blocked) unblock=$(share_of pthread_sigmask)
echo "  work_while_blocked: ${share:-0}%, pthread_sigmask: ${unblock:-0}%"
[ "${share:-0}" -ge 40 ] && [ "${unblock:-0}" -le 5 ] ||
  fail "the work done while blocked is not where its time is: $(head -20 "$tmp/report.txt")"
