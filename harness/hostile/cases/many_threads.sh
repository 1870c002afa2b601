# many_threads: 2,000 short threads, a few at a time (500 under QEMU).
# Every one is measured, and knit's memory stays bounded by the threads
# alive at once, not by all the program ever had: an ended thread's state
# goes to the next one. Before, 2,000 threads took 100 MB more than the
# program alone; the bound here is 32 MB more.
n=2000
[ "${KNIT_QEMU:-0}" = 1 ] && n=500
bare "$dir/many_threads" "$n" "$tmp/peak.bare"
recorded "$dir/many_threads" "$n" "$tmp/peak.rec"
same
measured
threads=$(sed -nE 's/^SUMMARY .* threads=([0-9]+) .*/\1/p' "$M/knit.log")
[ "$threads" -eq $((n + 1)) ] || fail "$threads threads measured, $((n + 1)) ran"
bare_kb=$(cat "$tmp/peak.bare") rec_kb=$(cat "$tmp/peak.rec")
echo "  peak resident: $bare_kb kB alone, $rec_kb kB under knit"
[ "$rec_kb" -le $((bare_kb + 32768)) ] || fail "knit took $((rec_kb - bare_kb)) kB for $n threads"
