# clock_calls: samples inside the vdso's clock_gettime (most of this
# program's time natively) go up to main like any other: every sample's
# path starts at main, none at a bare vdso address. Samples of the
# process's exit after main returned (exit's destructors, which under QEMU
# on a loaded machine can take a few ms) are not the loop's and not
# counted.
pair "$dir/clock_calls"
measured
samples_at_least 100
"$knit" report --format=folded "$M" >"$tmp/folded" || fail "no folded report"
total=$(awk '{s += $NF} END {print s + 0}' "$tmp/folded")
rooted=$(awk '$1 ~ /^main;timing_loop/ || $1 ~ /^main$/ {s += $NF} END {print s + 0}' "$tmp/folded")
vdso=$(awk '$1 ~ /vdso/ {s += $NF} END {print s + 0}' "$tmp/folded")
exiting=$(awk '$1 !~ /^main/ && $1 ~ /(^|;)exit(;|$)/ {s += $NF} END {print s + 0}' "$tmp/folded")
echo "  under main;timing_loop: $rooted of $total samples (in the vdso: $vdso; exiting: $exiting)"
total=$((total - exiting))
[ "$total" -gt 0 ] && [ $((rooted * 100)) -ge $((total * 98)) ] ||
  fail "samples outside main: $(grep -v '^main' "$tmp/folded" | head -5)"
# The vdso's functions by name: knit leaves a copy of its image in the
# measurement (no file holds it), which the report reads.
! grep -q 'linux-vdso' "$tmp/folded" || fail "vdso frames without a name: $(grep linux-vdso "$tmp/folded" | head -3)"
