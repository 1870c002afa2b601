# sleeps: knit's timer signals must not end the program's sleeps and waits
# early (the kernel does not restart them after a handler, SA_RESTART or
# not); a signal of the program's still does.
pair "$dir/sleeps"
measured
grep -q 'ended early' "$tmp/rec.out" && ! grep -q '^alarmed .*ended early' "$tmp/rec.out" &&
  fail "a wait ended early under knit"
grep -q '^alarmed .*EINTR, ended early' "$tmp/rec.out" || fail "SIGALRM no longer ends the sleep"
# The time asleep is measured (REALTIME): a sample as each wait ends, its
# timer's overruns counting the time waited, about 2.1 s in all.
periods=$(sed -nE '1s/.*samples \(([0-9]+) periods.*/\1/p' "$tmp/report.txt")
echo "  periods: ${periods:-none}"
[ "${periods:-0}" -ge 1500 ] || fail "${periods:-0} periods of 1 ms, expected about 2100"
