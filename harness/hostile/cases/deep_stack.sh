# deep_stack: the program works 400 calls deep, past knit's 256-frame
# walk. Its output is unchanged, and the report's header says that the
# paths were cut, not that every unwind was whole.
pair "$dir/deep_stack" 400
measured
samples_at_least 20
grep -qE '^lost: (.*; )?[0-9]+ paths cut at the frame limit' "$tmp/report.txt" ||
  fail "the report does not say that paths were cut: $(head -3 "$tmp/report.txt")"
