# clock_calls: samples inside the vdso's clock_gettime (most of this
# program's time natively) go up to main like any other: every sample's
# path starts at main, none at a bare vdso address. Samples of the
# process's exit after main returned (exit's destructors) and of the
# dynamic loader's start-up before main (every frame the loader's), which
# under QEMU on a loaded machine can take a few ms each, are not the
# loop's and not counted.
pair "$dir/clock_calls"
measured
samples_at_least 100
"$knit" report --format=folded "$M" >"$tmp/folded" || fail "no folded report"
total=$(awk '{s += $NF} END {print s + 0}' "$tmp/folded")
rooted=$(awk '$1 ~ /^main;timing_loop/ || $1 ~ /^main$/ {s += $NF} END {print s + 0}' "$tmp/folded")
vdso=$(awk '$1 ~ /vdso/ {s += $NF} END {print s + 0}' "$tmp/folded")
exiting=$(awk '$1 !~ /^main/ && $1 ~ /(^|;)exit(;|$)/ {s += $NF} END {print s + 0}' "$tmp/folded")
loading=$(awk '{ n = split($1, f, ";"); all = 1
                 for (i = 1; i <= n; i++) if (f[i] !~ /^(<partial>|ld[-.a-z0-9_]*\.so[.0-9]*(\+0x[0-9a-f]+)?|_dl_[a-z_]+|_start)$/) all = 0
                 if (all) s += $NF } END {print s + 0}' "$tmp/folded")
exiting=$((exiting + loading))
echo "  under main;timing_loop: $rooted of $total samples (in the vdso: $vdso; exiting or loading: $exiting)"
total=$((total - exiting))
[ "$total" -gt 0 ] && [ $((rooted * 100)) -ge $((total * 98)) ] ||
  fail "samples outside main: $(grep -v '^main' "$tmp/folded" | head -5)"
# The vdso's functions by name: knit leaves a copy of its image in the
# measurement (no file holds it), which the report reads.
! grep -q 'linux-vdso' "$tmp/folded" || fail "vdso frames without a name: $(grep linux-vdso "$tmp/folded" | head -3)"
