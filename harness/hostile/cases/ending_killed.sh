# ending_killed: SIGKILL (what the OOM killer and batch schedulers send)
# gives knit no chance to write anything; what the threads' files held at
# their last snapshot (KNIT_FLUSH_MS, here every 200 ms) is all there is,
# and it must be readable. knit record says the SUMMARY is missing and why.
export KNIT_FLUSH_MS=200
rm -f "$tmp/pid"
(cd "$tmp" && exec "$knit" record -e "$EVENT" "${qemu[@]}" -o "$OUT" -- "$dir/ending" wait "$tmp/pid" \
   >"$tmp/rec.out" 2>"$tmp/rec.err") &
leader=$!
for _ in $(seq 1 200); do [ -s "$tmp/pid" ] && break; sleep 0.05; done
[ -s "$tmp/pid" ] || fail "the program did not start"
sleep 1.5
kill -KILL "$(cat "$tmp/pid")"
wait "$leader"
rec_rc=$?
echo "+ SIGKILL -> $rec_rc"
sed 's/^/  | /' "$tmp/rec.out" "$tmp/rec.err"
[ "$rec_rc" -eq 137 ] || fail "knit record exited $rec_rc, not 137"
grep -qE 'killed by signal 9 \(Killed\) before knit could write its data; 2 thread files \(threads that had ended, and the others. last snapshots' "$tmp/rec.err" ||
  fail "knit record does not say what the kill left"
"$knit" report "$M" >"$tmp/report.txt" 2>&1 || fail "the snapshots do not read: $(head -5 "$tmp/report.txt")"
head -4 "$tmp/report.txt"
samples=$(sed -nE 's/^[A-Z]+ every .*: ([0-9]+) samples.*/\1/p' "$tmp/report.txt")
[ "${samples:-0}" -ge 100 ] || fail "the snapshots hold ${samples:-0} samples, expected at least 100"
grep -q '^ended: abnormally' "$tmp/report.txt" || fail "the report does not say the run ended abnormally"
