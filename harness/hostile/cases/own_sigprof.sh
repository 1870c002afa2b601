# own_sigprof: the program sets its own SIGPROF handler and ITIMER_PROF:
# knit moves to a real-time signal and says so, the program's ticks are
# its own, and putting SIGPROF back to the default does not kill it.
pair "$dir/own_sigprof"
measured
samples_at_least 100
grep -q '^signals: the program set its own SIGPROF action; knit samples by SIGRTMIN+' \
  "$tmp/m/knit.log" || fail "the log does not say knit moved off SIGPROF"
grep -q '^SUMMARY .* signal=SIGRTMIN+[0-9]* ' "$tmp/m/knit.log" ||
  fail "the SUMMARY does not name the signal knit moved to"
grep -q 'knit: SUMMARY .* signal=SIGRTMIN+' "$tmp/rec.err" ||
  fail "knit record does not show the move"
