# high_rate: rates above the bound are refused with a clear error (they
# hung the program); the bound itself is served, and when sampling takes
# too much of a thread's time knit lengthens its period and says so.
for e in REALTIME@f500000 REALTIME@f1000000 CPUTIME@f200000 REALTIME@10; do
  "$knit" record -e "$e" -o "$tmp/refused" -- "$dir/high_rate" >"$tmp/refused.out" 2>&1
  rc=$?
  echo "+ record -e $e -> $rc: $(cat "$tmp/refused.out")"
  [ "$rc" -eq 2 ] || fail "-e $e: status $rc, expected 2"
  grep -q 'knit samples at' "$tmp/refused.out" || fail "-e $e: the error does not name the bound"
  [ ! -e "$tmp/refused" ] || fail "-e $e: the program ran"
done
EVENT=REALTIME@f20000
start=$(date +%s%N)
pair "$dir/high_rate"
took=$(( ($(date +%s%N) - start) / 1000000 ))
echo "  both runs at the bound: $took ms"
measured
samples_at_least 100
# The safeguard, made to act: a share of 1% is always exceeded.
rm -rf "$tmp/m"
export KNIT_SAMPLING_PERCENT=1
pair "$dir/high_rate"
unset KNIT_SAMPLING_PERCENT
measured
grep -q "^sampling: thread 0 spent [0-9]*% of its time in knit's handler; its period is now" \
  "$tmp/m/knit.log" || fail "no line in the log says knit lengthened the period"
grep -q '^SUMMARY .* slowed=[1-9]' "$tmp/m/knit.log" || fail "the SUMMARY does not count the slowed threads"
