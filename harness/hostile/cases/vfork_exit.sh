# vfork_exit: the vfork child's _exit does not end the parent's session:
# the parent's work after the vfork is measured, most of the run's samples.
pair "$dir/vfork_exit"
measured
samples_at_least 30
"$knit" report --format=folded "$M" >"$tmp/folded" || fail "no folded report"
after=$(awk '/work_after/ {s += $NF} END {print s + 0}' "$tmp/folded")
total=$(awk '{s += $NF} END {print s + 0}' "$tmp/folded")
echo "  work_after: $after of $total samples"
[ "$after" -ge $((total / 2)) ] || fail "the parent's work after the vfork is not measured"
